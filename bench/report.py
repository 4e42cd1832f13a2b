"""Shared by the generators of the platform benchmarks' reports (run-payout-bench.sh,
run-capacity.sh, run-growth.sh), which run from the repository's root with bench/ on PYTHONPATH.
"""
import os


def probe(out, name):
    """The CPU probe around one run as "before / after" (ADR 0202), or "not taken"."""
    paths = [f"{out}/{name}.probe-before", f"{out}/{name}.probe-after"]
    if not all(map(os.path.exists, paths)):
        return "not taken"
    return " / ".join(open(p).read().strip() for p in paths)


def splice(path, marker, title, section):
    """Puts section between <!-- marker:start --> and <!-- marker:end --> in the document at path,
    a new one headed by title if there is none, and leaves the rest of it as it was."""
    start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
    doc = open(path).read() if os.path.exists(path) else f"# {title}\n\n{start}\n{end}\n"
    i, j = doc.index(start) + len(start), doc.index(end)
    with open(path, "w") as f:
        f.write(doc[:i] + "\n" + section + doc[j:])
