#!/usr/bin/env python3
"""Barrier-deletion mutants of the kernels a GPUVerify-style tree expects to verify (issue 12).

For every kernel of DIR/MANIFEST.tsv with defect `none`, and for every barrier statement in its
source (`__syncthreads();`, `barrier(...);`; `__syncwarp(...)` is not touched: audit never
removes a warp barrier), one mutant is the kernel with that one statement deleted. A barrier right after
`__barrier_invariant`s is not deleted: its invariants would attach to another barrier. Each mutant is run
as a user would:

    syncfix repair FLAGS kernel      (in a copy of the kernel's folder)

and ends one of these ways:
  - repaired:   the printed patch applies with `patch -p1` and the patched file verifies;
  - verifies:   the mutant needs no change, and `syncfix audit` on the original lists the
                deleted barrier as removable (else: "verifies, but audit keeps it");
  - anything else, with syncfix's last message.

    scripts/mutants.py DIR [--jobs N] [--timeout S] [--syncfix PATH] [--filter TEXT] [--out FILE.tsv]

Prints one line per mutant to FILE.tsv (or stdout) and a summary on stderr.
"""

import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

BARRIER = re.compile(r"__syncthreads\s*\(\s*\)\s*;|\bbarrier\s*\([^;()]*(\([^;()]*\)[^;()]*)*\)\s*;")


def run(cmd, cwd, timeout):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout + 10)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 7, "", "timeout"


def last_line(text):
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1][:200] if lines else ""


def audit_removes(syncfix, folder, name, flags, timeout, line):
    """Whether `syncfix audit` on the original lists the barrier at `line` as removable."""
    code, out, err = run([syncfix, "audit", *flags, f"--timeout={timeout}", name], folder, timeout)
    return code == 0 and re.search(rf":{line}: `", err) is not None


def mutant(args, rel, flags, start, end, line, text):
    src_dir = os.path.join(args.dir, os.path.dirname(rel))
    name = os.path.basename(rel)
    with tempfile.TemporaryDirectory() as work:
        folder = os.path.join(work, "k")
        shutil.copytree(src_dir, folder)
        path = os.path.join(folder, name)
        # The mutant: the barrier statement replaced by nothing (the line stays).
        with open(path, "w") as f:
            f.write(text[:start] + text[end:])
        fl = [f.replace("${KERNEL_DIR}", folder) for f in shlex.split(flags)]
        threads = f"--solver-threads={max(1, (os.cpu_count() or 1) // max(1, args.jobs))}"
        code, out, err = run([args.syncfix, "repair", *fl, threads, f"--timeout={args.timeout}", name], folder, args.timeout)
        if code == 0 and out.strip():
            p = subprocess.run(["patch", "-p1", "-s"], input=out, cwd=folder, capture_output=True, text=True)
            if p.returncode != 0:
                return "patch-fails", last_line(p.stderr + p.stdout)
            vcode, _, verr = run([args.syncfix, "verify", *fl, threads, f"--timeout={args.timeout}", name], folder, args.timeout)
            return ("repaired", "") if vcode == 0 else ("patched-fails", last_line(verr))
        if code == 0:
            # Needs no change: the deleted barrier was not needed; audit must agree.
            with open(path, "w") as f:
                f.write(text)
            if audit_removes(args.syncfix, folder, name, fl, args.timeout, line):
                return "verifies", ""
            return "verifies-audit-keeps", last_line(err)
        return f"exit-{code}", last_line(err)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--syncfix", default="target/release/syncfix")
    ap.add_argument("--filter", default="")
    ap.add_argument("--out")
    args = ap.parse_args()
    args.syncfix = os.path.abspath(args.syncfix)
    args.dir = os.path.abspath(args.dir)
    jobs = []
    skipped = 0
    with open(os.path.join(args.dir, "MANIFEST.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        col = {h: i for i, h in enumerate(head)}
        for row in f:
            c = row.rstrip("\n").split("\t")
            if c[col["defect"]] != "none" or args.filter not in c[col["path"]]:
                continue
            rel, flags = c[col["path"]], c[col["flags"]]
            text = open(os.path.join(args.dir, rel), encoding="utf-8", errors="replace").read()
            for m in BARRIER.finditer(text):
                # Skip barriers in comments (a `//` earlier on the line).
                line_start = text.rfind("\n", 0, m.start()) + 1
                if "//" in text[line_start:m.start()]:
                    continue
                # A barrier that carries barrier invariants cannot be deleted alone: its
                # `__barrier_invariant`s would attach to the next barrier (or to none).
                before = text[:m.start()].rstrip()
                prev = before[max(before.rfind(";", 0, len(before) - 1), before.rfind("{"), before.rfind("}")) + 1:]
                if "__barrier_invariant" in prev:
                    skipped += 1
                    continue
                line = text.count("\n", 0, m.start()) + 1
                jobs.append((rel, flags, m.start(), m.end(), line, text))
    out = open(args.out, "w") if args.out else sys.stdout
    counts = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        futures = {ex.submit(mutant, args, *j): j for j in jobs}
        results = []
        for fut in concurrent.futures.as_completed(futures):
            rel, _, _, _, line, _ = futures[fut]
            how, why = fut.result()
            results.append((rel, line, how, why))
    for rel, line, how, why in sorted(results):
        counts[how] = counts.get(how, 0) + 1
        print(f"{rel}\t{line}\t{how}\t{why}", file=out)
    good = counts.get("repaired", 0) + counts.get("verifies", 0)
    total = len(results)
    detail = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(
        f"{total} mutants ({skipped} barriers with barrier invariants not mutated): {good} repaired or still verifying "
        f"with audit agreeing ({100.0 * good / max(total, 1):.1f}%); {detail}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
