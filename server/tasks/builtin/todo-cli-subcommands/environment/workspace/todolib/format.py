def format_task(task):
    """One line per task, e.g. '  3 [x] (p1) pay rent'."""
    box = "[x]" if task["done"] else "[ ]"
    return f"{task['id']:>3} {box} (p{task['priority']}) {task['text']}"
