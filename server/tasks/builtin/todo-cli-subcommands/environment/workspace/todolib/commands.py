"""One function per subcommand: cmd_<name>(store, args) -> exit status."""
from .format import format_task


def cmd_add(store, args):
    task = store.add(args.text, args.priority)
    print(f"added {task['id']}: {task['text']}")
    return 0
