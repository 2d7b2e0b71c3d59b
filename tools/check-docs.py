#!/usr/bin/env python3
"""Checks the documentation a newcomer reads: README.md is at most 300 lines, and every relative
link in README.md and docs/*.md names a file that exists and, with `#anchor`, a heading of that
file (GitHub's anchors: lower case, punctuation dropped, spaces to hyphens). Links into code
blocks are not links. Exit 0 when all hold, 1 with one line per problem otherwise.

Usage: tools/check-docs.py
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README_LINES = 300


def prose(text):
    """The text outside fenced code blocks and inline code."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(path):
    """The anchors of a markdown file's headings, as GitHub makes them."""
    found = set()
    counts = {}
    for line in prose(open(path, encoding="utf-8").read()).splitlines():
        match = re.match(r"^#{1,6} (.*)$", line)
        if not match:
            continue
        title = match.group(1)
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        n = counts.get(slug, 0)
        counts[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def headings_with_code(path):
    """Anchors again, reading headings with their inline code (`## `retention run --json` fields`)."""
    found = set()
    text = re.sub(r"^```.*?^```", "", open(path, encoding="utf-8").read(), flags=re.S | re.M)
    for line in text.splitlines():
        match = re.match(r"^#{1,6} (.*)$", line)
        if match:
            found.add(re.sub(r"[^\w\- ]", "", match.group(1).strip().lower()).replace(" ", "-"))
    return found


def main():
    problems = []
    readme = os.path.join(ROOT, "README.md")
    lines = sum(1 for _ in open(readme, encoding="utf-8"))
    if lines > README_LINES:
        problems.append(f"README.md has {lines} lines, more than {README_LINES}: move a section to docs/")
    docs = os.path.join(ROOT, "docs")
    pages = [readme] + [os.path.join(docs, name) for name in sorted(os.listdir(docs)) if name.endswith(".md")]
    for page in pages:
        text = prose(open(page, encoding="utf-8").read())
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z]+:", target):
                continue  # a URL
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            name = os.path.relpath(page, ROOT)
            if not os.path.exists(resolved):
                problems.append(f"{name}: the link {target} names a file that does not exist")
            elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved) | headings_with_code(resolved):
                problems.append(f"{name}: the link {target} names no heading of {os.path.relpath(resolved, ROOT)}")
    for problem in problems:
        print("check-docs: " + problem, file=sys.stderr)
    if not problems:
        print(f"check-docs: README.md has {lines} lines; every link of README.md and docs/ resolves")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
