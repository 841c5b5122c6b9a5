"""`python -m engine.replay RECORD.json [--trace]`: replay a game record, print its position.

Prints the final `marrakech-position/1` JSON; with --trace, one position per action as JSON
Lines (the position after that action). A record that cannot be read, or holds an illegal
action, gives one line on stderr (for an illegal action: its index, notation and the reason)
and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from engine.cli import run_cli
from engine.errors import EngineError
from engine.position import to_position
from engine.record import record_from_json, replay_record, replay_steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.replay",
        description="Replay a marrakech-record/1 game record and print the final position.",
    )
    parser.add_argument("record", metavar="RECORD.json")
    parser.add_argument(
        "--trace", action="store_true", help="print the position after every action (JSON Lines)"
    )
    args = parser.parse_args(argv)
    path = args.record
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, UnicodeDecodeError) as error:
        print(f"error: {path}: cannot read it ({error})", file=sys.stderr)
        return 2
    except json.JSONDecodeError as error:
        print(f"error: {path}: not valid JSON ({error.msg}, line {error.lineno})", file=sys.stderr)
        return 2
    except ValueError:  # json refuses a number of more digits than int() reads
        print(f"error: {path}: not valid JSON (a number too long to read)", file=sys.stderr)
        return 2
    except RecursionError:
        print(f"error: {path}: JSON nested too deeply", file=sys.stderr)
        return 2
    try:
        record = record_from_json(document)
        if args.trace:
            for state in replay_steps(record):
                print(json.dumps(to_position(state)))
        else:
            print(json.dumps(to_position(replay_record(record)), indent=2))
    except EngineError as error:
        print(f"error: {path}: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
