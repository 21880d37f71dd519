#!/usr/bin/env python3
# Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
"""Checks that every jitscope include names a real file and follows the stage arrows of
docs/architecture.md.

Each stage is a folder src/jitscope/<stage>/; a file of one stage may include only the stages
listed for it below. A new stage, or a new arrow, is added here on purpose, and to
docs/architecture.md.

usage: check_stage_includes.py SOURCE_DIR
"""
import pathlib
import re
import sys

# What each stage may include, besides itself (docs/architecture.md, "The stages").
ALLOWED = {
    # The in-process side: lives inside other people's processes, never includes the tool side.
    "api": set(),
    "base": set(),
    "trace": {"base"},
    "formats": {"base", "trace"},
    "collector": {"base", "trace", "formats"},
    "opagent": {"base", "trace", "formats", "collector"},
    # libjitscope-frames.so, preloaded into any program: the file format it writes, no more.
    "preload": {"base", "formats"},
    # The tool side reads files only through trace, formats and session; report and symbolize
    # never depend on the sampler, so a perf.data and a jitscope session are reported by the same
    # code.
    "session": {"base", "formats"},
    "symbolize": {"base", "trace", "formats"},
    # Machine code is decoded in one place, a thin wrapper over the disassembler library, which
    # unwind (rules derived from JIT code) and report (annotation) stand on.
    "disasm": {"base"},
    "unwind": {"base", "trace", "formats", "session", "symbolize", "disasm"},
    # A recording opened and its samples' stacks walked: record (through cli) and report both
    # stand on it, and neither owns it.
    "walk": {"base", "trace", "formats", "session", "symbolize", "unwind"},
    "record": {"base", "trace", "formats", "session"},
    "report": {"base", "trace", "formats", "session", "symbolize", "unwind", "walk", "disasm"},
    "cli": {"base", "trace", "formats", "session", "symbolize", "unwind", "walk", "record",
            "report", "disasm"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"(jitscope/[^"]+)"', re.MULTILINE)
SOURCES = ("*.h", "*.c", "*.cc")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1])
    src = root / "src"
    stages = root / "src" / "jitscope"
    problems = []
    checked = 0
    for stage_dir in sorted(p for p in stages.iterdir() if p.is_dir()):
        stage = stage_dir.name
        if stage not in ALLOWED:
            problems.append(f"src/jitscope/{stage}: a stage docs/architecture.md does not name; "
                            f"add it to {pathlib.Path(__file__).name} with its allowed includes")
            continue
        for pattern in SOURCES:
            for path in sorted(stage_dir.rglob(pattern)):
                text = path.read_text(encoding="utf-8", errors="replace")
                for match in INCLUDE.finditer(text):
                    checked += 1
                    included = match.group(1)
                    where = f"{path.relative_to(root)}:{text.count(chr(10), 0, match.start()) + 1}"
                    if not (src / included).is_file():
                        problems.append(f'{where}: "{included}" names no file under src/')
                        continue
                    target = included.split("/")[1]
                    if target != stage and target not in ALLOWED[stage]:
                        problems.append(f'{where}: {stage} may not include {target} ("{included}")')
    for problem in problems:
        print(problem)
    if checked == 0:
        print(f"no jitscope includes found under {stages}: wrong SOURCE_DIR?")
        return 1
    print(f"{checked} includes checked, {len(problems)} against the design")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
