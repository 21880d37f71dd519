#!/usr/bin/env python3
# Trims a JVM's recorded session to what its test reads, so that it can be checked in: a JVM's
# own files are megabytes (the agent's trace holds the code of every stub, its JVM table every
# method of the 400-odd classes a JVM loads at start). Kept: the samples, session.json, vdso.so;
# of HotSpot's perf map (copied from /tmp by hand, -XX:+DumpPerfMapAtExit wrote it at exit) its
# `Interpreter` line, which is all the walk needs to take interpreter frames by their layout; of
# the JVM table, its header, the METHOD records of the CLASSes and the END records of their
# Method*s (a class redefined or unloaded ends its methods' entries; an END of another class's
# entry of the same Method* finds none open, and is counted as unmatched). Dropped: the agent's
# trace, OProfile's dump and the agent's log.
#
#   keep_jvm_session.py SESSION PERF_MAP CLASS...
import os
import re
import struct
import sys


def main():
    session, perf_map = sys.argv[1:3]
    class_names = set(sys.argv[3:])
    for name in os.listdir(session):
        if re.fullmatch(r"(jit-\d+\.jsc|\d+\.dump|jvmti-opagent-\d+\.log)", name):
            os.remove(os.path.join(session, name))
    with open(perf_map) as f:
        interpreter = [line for line in f if line.rstrip("\n").split(" ", 2)[-1] == "Interpreter"]
    with open(os.path.join(session, os.path.basename(perf_map)), "w") as f:
        f.writelines(interpreter)
    for name in os.listdir(session):
        if not re.fullmatch(r"jvm-\d+\.jsm", name):
            continue
        path = os.path.join(session, name)
        data = open(path, "rb").read()
        header_size = struct.unpack_from("<I", data, 8)[0]
        kept = bytearray(data[:header_size])
        offset = header_size
        methods = set()
        while offset + 16 <= len(data):
            kind, size = struct.unpack_from("<II", data, offset)
            if kind == 1:  # METHOD: the class name is the first string, after the line table
                line_count = struct.unpack_from("<I", data, offset + 16 + 40)[0]
                class_size = struct.unpack_from("<I", data, offset + 16 + 24)[0]
                at = offset + 16 + 48 + 8 * line_count
                if data[at:at + class_size].decode() in class_names:
                    kept += data[offset:offset + size]
                    methods.add(struct.unpack_from("<Q", data, offset + 16)[0])
            elif kind == 2:  # END: the Method* first
                if struct.unpack_from("<Q", data, offset + 16)[0] in methods:
                    kept += data[offset:offset + size]
            offset += size
        open(path, "wb").write(kept)


if __name__ == "__main__":
    main()
