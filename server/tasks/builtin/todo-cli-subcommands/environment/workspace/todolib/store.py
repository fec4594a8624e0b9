import json
import os


class TaskNotFound(Exception):
    def __init__(self, task_id):
        super().__init__(f"no task with id {task_id}")
        self.task_id = task_id


class Store:
    """Tasks persisted as JSON: {"next_id": int, "tasks": [{"id", "text", "priority", "done"}]}."""

    def __init__(self, path):
        self.path = path
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        else:
            data = {"next_id": 1, "tasks": []}
        self.next_id = data["next_id"]
        self.tasks = data["tasks"]

    def save(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"next_id": self.next_id, "tasks": self.tasks}, f, indent=2)
        os.replace(tmp, self.path)

    def add(self, text, priority=2):
        task = {"id": self.next_id, "text": text, "priority": priority, "done": False}
        self.next_id += 1
        self.tasks.append(task)
        self.save()
        return task

    def get(self, task_id):
        raise NotImplementedError

    def complete(self, task_id):
        raise NotImplementedError

    def remove(self, task_id):
        raise NotImplementedError
