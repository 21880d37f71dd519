# What the bench scripts share: where the build is, running a command and timing it, and
# replacing a script's section of docs/performance.md.
import os
import re
import subprocess
import time
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("JITSCOPE_BUILD_DIR", os.path.join(ROOT, "build"))
JITSCOPE = os.path.join(BUILD, "bin", "jitscope")
JITVM = os.path.join(BUILD, "bin", "jitvm")
HOTSPOT = os.path.join(ROOT, "examples", "jitvm", "programs", "hotspot.jv")
PERFORMANCE_DOC = os.path.join(ROOT, "docs", "performance.md")


def fail(message):
    sys.exit(f"{os.path.relpath(sys.argv[0], ROOT)}: {message}")


def need_build(*paths):
    for path in paths:
        if not os.path.exists(path):
            fail(f"{path} is missing: build first (scripts/configure build && cmake --build build)")


def run(cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        fail(f"{' '.join(cmd)} exited with {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    return proc


def timed(cmd, cwd):
    """Wall seconds and peak RSS (MB) of cmd, its output thrown away."""
    times = os.path.join(cwd, "time.txt")
    proc = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", times] + cmd, cwd=cwd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        fail(f"{' '.join(cmd)} exited with {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    seconds, kilobytes = open(times).read().split()[-2:]
    return float(seconds), int(kilobytes) / 1024.0


def record_unwinding(stderr):
    """What `jitscope record` said of its unwinding: (samples, of them unwound while recording,
    seconds the unwinding took when the recording ended), or None when it unwound nothing."""
    said = re.search(r"unwound (\d+) samples in ([\d.]+) s .*?(?:, (\d+) of them while "
                     r"recording)?$", stderr, re.M)
    if not said:
        return None
    return int(said.group(1)), int(said.group(3) or 0), float(said.group(2))


def run_watching(cmd, cwd, watched):
    """Runs cmd (as run() does) while polling the size of directory `watched` every 20 ms;
    returns the process and the largest size seen, in MB (what the recording held on disk at
    most)."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    largest = 0.0
    while proc.poll() is None:
        try:
            largest = max(largest, directory_mb(watched))
        except OSError:
            pass  # not made yet, or a file renamed meanwhile
        time.sleep(0.02)
    out, err = proc.communicate()
    if proc.returncode != 0:
        fail(f"{' '.join(cmd)} exited with {proc.returncode}: {err.strip()[-2000:]}")
    largest = max(largest, directory_mb(watched))
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err), largest


def directory_mb(path):
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path)) / 1e6


def jitscope_samples(session, cwd):
    """The samples `jitscope report` counts in a session (its header)."""
    header = run([JITSCOPE, "report", session, "--top", "1"], cwd).stdout
    return int(re.search(r"^# ([\d,]+) samples", header, re.M).group(1).replace(",", ""))


def write_section(name, section):
    """Replaces the `name` section of docs/performance.md (appends it the first time)."""
    with open(PERFORMANCE_DOC) as f:
        text = f.read()
    script = os.path.relpath(sys.argv[0], ROOT)
    section = (f"<!-- {name}: begin (written by {script} --write) -->\n" + section.rstrip("\n") +
               f"\n<!-- {name}: end -->")
    pattern = re.compile(rf"<!-- {name}: begin.*?<!-- {name}: end -->", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: section, text)
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    with open(PERFORMANCE_DOC, "w") as f:
        f.write(text)
