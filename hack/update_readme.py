"""Regenerate the parts of README.md that come from the code: the rule table.

Usage: python hack/update_readme.py [--check]
The text between <!-- rules:start --> and <!-- rules:end --> is the output of
`httpd24 rules --format markdown`; --check exits 1 when README.md is stale.
"""

from __future__ import annotations

import io
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "operator"))

from httpd24.cli import main as cli  # noqa: E402

START, END = "<!-- rules:start -->", "<!-- rules:end -->"


def rules_table() -> str:
    out = io.StringIO()
    cli(["rules", "--format", "markdown"], out, io.StringIO())
    return out.getvalue()


def render(readme: str) -> str:
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{rules_table()}{END}{tail}"


def main(argv: list[str]) -> int:
    path = os.path.join(ROOT, "README.md")
    with open(path) as handle:
        current = handle.read()
    wanted = render(current)
    if "--check" in argv:
        if wanted != current:
            print("README.md rule table is stale: run python hack/update_readme.py", file=sys.stderr)
            return 1
        return 0
    with open(path, "w") as handle:
        handle.write(wanted)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
