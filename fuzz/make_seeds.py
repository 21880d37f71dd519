#!/usr/bin/env python3
# Writes the synthetic part of the fuzzers' seed corpus (corpus/*/synthetic_*). The real seed
# corpus/jitdump/lli_mcjit.dump was written by `lli-14 -jit-kind=mcjit` (JITDUMPDIR=...) running
# a 7-line C program compiled with `clang-14 -g -S -emit-llvm`.
# The real seeds corpus/perf_data/awk_*.data were written by Debian's perf 6.1 recording
# `awk 'BEGIN{for(i=0;i<2e6;i++)s+=i}'` at -F 100 with -e cpu-clock: awk_fp.data `-k 1 -g`,
# awk_dwarf.data `-k 1 --call-graph dwarf,512`, awk_z.data `-z -k 1 -g`, awk_two_events.data
# `-g -e cpu-clock,page-faults` (two attrs, no -k 1).
# The real seed corpus/registered_frames/lli_mcjit.jsf was written by libjitscope-frames.so
# preloaded into `lli-14 -jit-kind=mcjit` running tests/unwind/cfi_shapes.c (clang-14 -O2
# -fomit-frame-pointer -S -emit-llvm).
# The real seed corpus/jvm_table/openjdk17.jsm holds records of the JVM table libjvmti_opagent.so
# wrote into OpenJDK 17 running `CallChain 3000 20000` (examples/jvmti-opagent): its header, the
# METHOD records of java.lang.Object, java.lang.System and CallChain, and its first two COMPILED
# records with inlined scopes, in the order the agent wrote them. corpus/jvm_table/
# openjdk17_redefined.jsm is the JVM table of tests/report/recorded/java-redefined (OpenJDK 17
# running Redefining, which redefines a class five times: METHOD and END records of Method*s
# that held one method, then another).
# The real seeds corpus/eh_frame_subset/* are the section address, a pc and the .eh_frame (objcopy
# -O binary --only-section=.eh_frame) of gcc 12 builds: archived_library of
# tests/record/archived_library.c (-g -O1 -fPIC -shared, its ArchivedWork), personality_lsda of
# a two-function C++ file whose Catcher catches the int its Thrower throws (g++ -O1 -fPIC
# -shared: CIEs with a personality and FDEs with an LSDA pointer, both pc-relative).
import os, struct

here = os.path.dirname(os.path.abspath(__file__))

def jitdump(endian):
    out = []
    def rec(rid, ts, body):
        out.append(struct.pack(endian + 'IIQ', rid, 16 + len(body), ts) + body)
    ents = b''.join(struct.pack(endian + 'QII', a, l, c) + f + b'\0' for a, l, c, f in
                    [(0x1000, 10, 3, b'a.js'), (0x1008, 11, 5, b'\xff'), (0x1010, 12, 1, b'b.js')])
    rec(2, 5, struct.pack(endian + 'QQ', 0x1000, 3) + ents)
    rec(4, 6, struct.pack(endian + 'QQQ', 8, 0, 0) + b'\x11' * 8)
    rec(0, 7, struct.pack(endian + 'IIQQQQ', 42, 43, 0x1000, 0x1000, 0x20, 1) + b'JS:*f a.js:1\0' + b'\x90' * 0x20)
    rec(0, 8, struct.pack(endian + 'IIQQQQ', 42, 43, 0x2000, 0x2000, 0x10, 2) + b'stub\0' + b'\xc3' * 0x10)
    rec(1, 9, struct.pack(endian + 'IIQQQQQ', 42, 43, 0x3000, 0x2000, 0x3000, 0x10, 2))
    rec(3, 10, b'')
    header = struct.pack(endian + 'IIIIIIQQ', 0x4A695444, 1, 40, 62, 0, 42, 1, 0)
    return header + b''.join(out)

def v8_style():
    blob = b'\xbbn\x02\0\0\0\0\0\x85\xc9\xa82\x1cL\xd0\xdc'
    ents = b''.join(struct.pack('<QII', 0x1000 + 0x40 + o, l, 19) + blob + b'\0'
                    for o, l in [(0, 1), (0x27, 2), (0x46, 2)])
    body = struct.pack('<QQ', 0x1000, 3) + ents + b'\0' * 5
    dbg = struct.pack('<IIQ', 2, 16 + len(body), 5) + body
    load_body = struct.pack('<IIQQQQ', 42, 43, 0, 0x1000, 0x80, 7) + b'JS:*fibonacci fib.js:1:19\0' + b'\x90' * 0x80
    load = struct.pack('<IIQ', 0, 16 + len(load_body), 6) + load_body
    return struct.pack('<IIIIIIQQ', 0x4A695444, 1, 40, 62, 0, 42, 1, 0) + dbg + load

def v8_unwinding_info():
    # Node's --perf-prof-unwinding-info: an UNWINDING_INFO before a CODE_LOAD, its data V8's
    # .eh_frame for a 384-byte TurboFan function (a CIE and one FDE), then the 20-byte
    # .eh_frame_hdr; and a header-only one (mapped_size 0) before a stub.
    eh_frame = bytes.fromhex(
        '1800000000000000037a4c520001781002ff1b0c070890010000000028000000200000005cfeffff7e010000'
        '004f0e108602430d060304010d07410e08520c06100000000000000000000000')
    hdr = bytes.fromhex('011b033bb0ffffff0100000034feffffd0ffffff')
    def rec(rid, ts, body):
        return struct.pack('<IIQ', rid, 16 + len(body), ts) + body
    data = eh_frame + hdr
    unwinding = rec(4, 5, struct.pack('<QQQ', len(data), len(hdr), len(data)) + data + b'\0' * 4)
    load = rec(0, 6, struct.pack('<IIQQQQ', 42, 43, 0, 0x10000, 384, 1) + b'JS:*fib t.js:1:13\0'
               + b'\x90' * 384)
    header_only = rec(4, 7, struct.pack('<QQQ', len(hdr), len(hdr), 0) + hdr + b'\0' * 4)
    stub = rec(0, 8, struct.pack('<IIQQQQ', 42, 43, 0, 0x20000, 16, 2) + b'stub\0' + b'\xc3' * 16)
    header = struct.pack('<IIIIIIQQ', 0x4A695444, 1, 40, 62, 0, 42, 1, 0)
    return header + unwinding + load + header_only + stub

def oprofile(i386=False):
    def pad(b):
        return b + b'\0' * ((8 - len(b) % 8) % 8)
    def rec(rid, ts, body):
        r = pad(struct.pack('<IIQ', rid, 0, ts) + body)
        return r[:4] + struct.pack('<I', len(r)) + r[8:]
    # i386: a 28-byte header (the u64 timestamp 4-aligned) and a 4-byte vma in the debug entries.
    if i386:
        header = pad(struct.pack('<IIIIIQ', 0x4F74496A, 1, 40, 8, 4, 1700000000) + b'elf32-i386\0')
        vma = '<I'
    else:
        header = struct.pack('<IIIIIIQ', 0x4F74496A, 1, 48, 9, 64, 0, 1700000000) + b'elf64-x86-64\0\0\0\0'
        vma = '<Q'
    recs = [rec(0, 1700000001, struct.pack('<QQII', 0x4000, 0x4000, 0x20, 0) + b'Lfoo;bar()V\0' + b'\x90' * 0x20),
            rec(3, 1700000001, struct.pack('<QII', 0x4000, 2, 0) + struct.pack(vma, 0x4000) + struct.pack('<I', 7) + b'Foo.java\0' + struct.pack(vma, 0x4010) + struct.pack('<I', 9) + b'Foo.java\0'),
            rec(0, 1700000002, struct.pack('<QQII', 0x5000, 0, 0x10, 0) + b'stub\0'),
            rec(1, 1700000003, struct.pack('<Q', 0x4000)),
            rec(2, 1700000004, b'')]
    return header + b''.join(recs)

def perf_rec(rtype, body, misc=0):
    # A kernel perf record: perf_event_header, then its body.
    return struct.pack('<IHH', rtype, misc, 8 + len(body)) + body

def perf_trailer(pid, time):
    # The sample_id_all trailer of a samples file's records: pid, tid, time.
    return struct.pack('<IIQ', pid, pid, time)

# An MMAP2 of /usr/bin/app at 0x400000 for process 7, as samples files hold them.
APP_MMAP2 = perf_rec(10, struct.pack('<IIQQQIIQQII', 7, 7, 0x400000, 0x1000, 0, 8, 1, 99, 0, 5, 2)
                     + b'/usr/bin/app\0\0\0\0' + perf_trailer(7, 100))

def samples_dwarf():
    # A samples file of `jitscope record --call-graph dwarf,64`: header with the dwarf
    # sample_type (IP|TID|TIME|CALLCHAIN|REGS_USER|STACK_USER), the x86-64 register mask and the
    # stack size, then an MMAP2, a 64-bit sample, a kernel thread's sample (abi NONE, no stack),
    # an i386 sample, a THROTTLE and a LOST record.
    mask, sample_type = 0xff0fff, 0x3027
    header = b'JSSAMPLE' + struct.pack('<IIQQQQ', 1, 48, sample_type, 1, mask, 64)
    rec, trailer, mmap2 = perf_rec, perf_trailer, APP_MMAP2
    def sample(abi, regs, stack, dyn):
        body = struct.pack('<QIIQ', 0x400010, 7, 7, 200)
        body += struct.pack('<QQQ', 2, 0xffffffffffffff80, 0xffffffff81000000)
        body += struct.pack('<Q', abi)
        if abi:
            body += b''.join(struct.pack('<Q', 0x7ffc0000 + 8 * i) for i in range(regs))
        body += struct.pack('<Q', len(stack)) + stack
        if stack:
            body += struct.pack('<Q', dyn)
        return rec(9, body)
    stack = b''.join(struct.pack('<Q', 0x400020 + i) for i in range(8))
    regs = bin(mask).count('1')
    return (header + mmap2 + sample(2, regs, stack, 48) + sample(0, 0, b'', 0)
            + sample(1, regs, stack, 64) + rec(5, struct.pack('<QQQ', 1, 2, 3))
            + rec(2, struct.pack('<QQ', 1, 4) + trailer(0, 0)))

def samples_unwound():
    # A samples file `jitscope record --call-graph dwarf` unwound when it ended: flags kernel |
    # unwound, IP|TID|TIME|CALLCHAIN, no registers, the stack size asked for kept; an MMAP2, then
    # samples whose chains carry jitscope's markers: not-after-call (-3584) before an exact pc and
    # the walk's end (-3840 + reason) last, one carried on by the frame-pointer chain (-3328
    # before its frames), one with a reason no unwinder has, one whose chain ends in a marker
    # before any frame.
    header = b'JSSAMPLE' + struct.pack('<IIQQQQ', 1, 48, 0x27, 3, 0, 8192)
    rec, trailer, mmap2 = perf_rec, perf_trailer, APP_MMAP2
    kernel, user = 0xffffffffffffff80, 0xfffffffffffffe00
    not_after_call, walk_end, guessed = 0xfffffffffffff200, 0xfffffffffffff100, 0xfffffffffffff300
    def sample(time, chain):
        body = struct.pack('<QIIQ', 0x400010, 7, 7, time)
        body += struct.pack('<Q', len(chain)) + b''.join(struct.pack('<Q', v) for v in chain)
        return rec(9, body, misc=2)
    return (header + mmap2
            + sample(200, [kernel, 0, user, not_after_call, 0x400010, 0x400420, not_after_call,
                           0x400500, 0x400600, walk_end + 0])
            + sample(250, [user, 0x400010, 0x400420, guessed, 0x400700, 0x400800, walk_end + 1])
            + sample(300, [user, 0x400010, walk_end + 200])
            + sample(400, [walk_end + 1]))

def samples_mixed():
    # A --call-graph dwarf samples file `jitscope record` was unwinding while it recorded: the
    # samples of samples_dwarf(), then two of jitscope's own record type 0x4a530001 (unwound
    # while recording: the unwound layout, markers and walk's end), one with a reason no unwinder
    # has.
    kernel, user = 0xffffffffffffff80, 0xfffffffffffffe00
    not_after_call, walk_end = 0xfffffffffffff200, 0xfffffffffffff100
    def unwound(time, chain):
        body = struct.pack('<QIIQ', 0x400010, 7, 7, time)
        body += struct.pack('<Q', len(chain)) + b''.join(struct.pack('<Q', v) for v in chain)
        return perf_rec(0x4a530001, body, misc=2)
    return (samples_dwarf()
            + unwound(300, [kernel, 0, user, not_after_call, 0x400010, 0x400420, walk_end + 0])
            + unwound(350, [user, 0x400010, walk_end + 200]))

def unwind_walk():
    # 17 x86-64 DWARF registers (rip in slot 16 at a low file address of the fuzzer, rsp in slot
    # 7), then a stack copy whose words look like return addresses and saved registers.
    regs = [0] * 17
    regs[7], regs[6], regs[16] = 0x7ffc0000, 0x7ffc0040, 0x2000
    stack = b''.join(struct.pack('<Q', 0x2000 + 0x40 * i if i % 3 else 0x7ffc0000 + 8 * i)
                     for i in range(64))
    return b''.join(struct.pack('<Q', r) for r in regs) + stack

def unwind_expression():
    # After the registers, (atom, operand, operand2) triples: glibc's PLT CFA expression
    # (breg7 8; breg16 0; lit15; and; lit11; ge; lit3; shl; plus), then a branch and a deref.
    regs = b''.join(struct.pack('<Q', 0x7ffc0000 if i == 7 else 0x1000 + i) for i in range(17))
    ops = [(0x77, 8, 0), (0x80, 0, 0), (0x3f, 0, 0), (0x1a, 0, 0), (0x3b, 0, 0), (0x2a, 0, 0),
           (0x33, 0, 0), (0x24, 0, 0), (0x22, 0, 0), (0x28, 3, 0), (0x06, 0, 0), (0x94, 4, 0)]
    return regs + b''.join(bytes(op) for op in ops)

def disasm_x86_64():
    # Mode byte 0, then a frame setup, a rip-relative load, AVX-512 with a mask and a broadcast,
    # a direct call and jump, an indirect call, a bad byte (0x06 in 64-bit mode) and a mov with
    # its 64-bit immediate cut short.
    return bytes([0]) + bytes.fromhex(
        '554889e54883ec20488b0500010000'
        '62f26d48b8d962f17cc9104601'
        '62f14d58fe6802e805000000eb03ff5008'
        '06c9c348b8efcdab89')

def annotate(flags):
    # A flags byte (1: the region claims more than was recorded; 2: Intel syntax; 4: per line),
    # then the x86-64 code of the disasm seed: its call bytes (0xe8) become call sites.
    return bytes([flags]) + disasm_x86_64()[1:]

def derived_rules_split_function():
    # A 2-byte split point, then a hot region (push rbx; sub rsp, 16; test rdi, rdi; jz cold;
    # add rsp, 16; pop rbx; ret) at 0x10000 and a cold one (call [r11]; jmp back) at 0x20000.
    hot = (b'\x53' + b'\x48\x83\xec\x10' + b'\x48\x85\xff' +
           b'\x0f\x84' + struct.pack('<i', 0x20000 - 0x1000e) +
           b'\x48\x83\xc4\x10' + b'\x5b' + b'\xc3')
    cold = b'\x41\xff\x13' + b'\xe9' + struct.pack('<i', 0x1000e - 0x20008)
    return struct.pack('<H', len(hot)) + hot + cold

def derived_rules_frames():
    # push rbp; mov rbp, rsp; and rsp, -64; enter 32, 0; leave; mov rsp, rbp; pop rbp; ret,
    # then data that decodes as more code.
    code = (b'\x55\x48\x89\xe5\x48\x83\xe4\xc0\xc8\x20\x00\x00\xc9\x48\x89\xec\x5d\xc3'
            + b'\x55\xe8\x00\x00\x00\x00\xff\xff')
    return struct.pack('<H', len(code)) + code

def derived_rules_prologue_call():
    # V8's baseline code: a hot region at 0x10000 that calls the cold one first (call 0x20000;
    # push rax; mov [rbp-8], rax; mov rsp, rbp; pop rbp; ret), and the cold one an out-of-line
    # prologue (pop r15; push rbp; mov rbp, rsp; push rsi; push r15; ret) whose effect the
    # fuzzer gives every direct call.
    hot = (b'\xe8' + struct.pack('<i', 0x20000 - 0x10005) + b'\x50' + b'\x48\x89\x45\xf8' +
           b'\x48\x89\xec' + b'\x5d' + b'\xc3')
    cold = b'\x41\x5f' + b'\x55' + b'\x48\x89\xe5' + b'\x56' + b'\x41\x57' + b'\xc3'
    return struct.pack('<H', len(hot)) + hot + cold

def derived_rules_patched_entry():
    # Compiled code whose entry a jump was patched over (HotSpot's code made not entrant): jmp out
    # of the code, what is left of the 7-byte stack bang (fe ff), then push rbp; sub rsp, 0x30;
    # call out; add rsp, 0x30; pop rbp; ret.
    code = (b'\xe9' + struct.pack('<i', 0x10000) + b'\xfe\xff' + b'\x55' + b'\x48\x83\xec\x30' +
            b'\xe8' + struct.pack('<i', 0x20000) + b'\x48\x83\xc4\x30' + b'\x5d' + b'\xc3')
    return struct.pack('<H', len(code)) + code

def disasm_i386():
    # Mode byte 1: push %ebp; mov %esp,%ebp; push %es; call; pop %ebp; ret; lock-prefixed garbage.
    return bytes([1]) + bytes.fromhex('5589e506e80b0000005dc3f0f0f0f0f0f0f0f0f0f0f0f0f0f0f090')

def oprofile_unknown_and_torn():
    # An unknown record id (skipped and counted), then a load cut short by the end of the file.
    return (oprofile() + struct.pack('<IIQQ', 7, 24, 1700000005, 0x6000) +
            struct.pack('<IIQQQII', 0, 64, 1700000006, 0x6000, 0x6000, 0x10, 0) + b'torn')

def registered_frames():
    # A CIE ("zR", pcrel|sdata4) and an FDE for 0x40 bytes at 0x7f0000001000, registered at
    # 0x7f0000100000; a second registration of a CIE with absolute pointers; the first one's
    # deregistration; then a record cut short.
    address = 0x7f0000100000
    cie = struct.pack('<II', 20, 0) + bytes([1]) + b'zR\0' + bytes([1, 0x78, 16, 1, 0x1b, 0x0c, 7, 8, 0x90, 1, 0, 0])
    field = address + len(cie) + 8
    fde = struct.pack('<IIiI', 16, len(cie) + 4, 0x7f0000001000 - field, 0x40) + bytes(4)
    eh = cie + fde + bytes(4)
    plain_cie = struct.pack('<II', 12, 0) + bytes([1, 0, 1, 0x78, 16, 0x0c, 7, 8])
    plain = plain_cie + struct.pack('<IIQQ', 20, len(plain_cie) + 4, 0x401000, 0x30) + bytes(4)
    def record(kind, time, at, body):
        pad = (-len(body)) % 8
        return struct.pack('<IIQQ', kind, len(body), time, at) + body + bytes(pad)
    header = b'JSFRAMES' + struct.pack('<IIII', 1, 24, 42, 0)
    return (header + record(1, 100, address, eh) + record(1, 150, 0x600000, plain) +
            record(2, 200, address, b'') + record(1, 300, address, eh)[:30])

def jvm_table():
    # Two methods (one with lines, one native), the first one ended, compiled code whose second
    # pc has the second method inlined into the first, a record of an unknown type, then a
    # method cut short.
    def record(rtype, time, body):
        body += bytes((-len(body)) % 8)
        return struct.pack('<IIQ', rtype, 16 + len(body), time) + body
    def method(m, base, size, flags, strings, lines):
        body = struct.pack('<QQII', m, base, size, flags)
        body += struct.pack('<IIIIII', *[len(s) for s in strings], len(lines), 0)
        body += b''.join(struct.pack('<II', *l) for l in lines) + b''.join(strings)
        return body
    run = method(0x7f0000001000, 0x7f0000000f00, 46, 0,
                 [b'pkg.Work', b'run', b'(JI)J', b'pkg/Work.java'], [(0, 11), (4, 12), (20, 14)])
    nano = method(0x7f0000002000, 0x7f0000001f00, 0, 1, [b'java.lang.System', b'nanoTime', b'()J', b''], [])
    compiled = struct.pack('<QIIII', 0x7f1000000000, 0x200, 2, 3, 0)
    compiled += struct.pack('<QII', 0x7f1000000040, 0, 1) + struct.pack('<QII', 0x7f1000000100, 1, 2)
    compiled += struct.pack('<QiI', 0x7f0000001000, 4, 0) + struct.pack('<QiI', 0x7f0000002000, 0, 0)
    compiled += struct.pack('<QiI', 0x7f0000001000, 20, 0)
    header = struct.pack('<IIIIQ', 0x4d4a534a, 1, 24, 42, 1000)
    return (header + record(1, 0, run) + record(1, 10, nano) +
            record(2, 500, struct.pack('<QQ', 0x7f0000002000, 400)) + record(3, 600, compiled) +
            record(9, 700, b'later') + record(1, 800, run)[:50])


def captured_code():
    # Two reads of one function (0x7f0000001000, 32 bytes: push rbp; mov rbp, rsp; call; pop;
    # ret) with different bytes between them, a window read holding it, and a record cut short.
    function = bytes([0x55, 0x48, 0x89, 0xe5, 0xe8, 0, 0, 0, 0, 0x5d, 0xc3]) + b'\xcc' * 21
    patched = bytes([0x55, 0x48, 0x89, 0xe5, 0x90, 0x90, 0x90, 0x90, 0x90, 0x5d, 0xc3]) + b'\xcc' * 21
    def record(time, at, body):
        pad = (-len(body)) % 8
        return struct.pack('<IIQQ', 1, len(body), time, at) + body + bytes(pad)
    header = b'JSMEMORY' + struct.pack('<IIII', 1, 24, 42, 0)
    window = b'\x90' * 0x40 + function + b'\x90' * 0x40
    return (header + record(100, 0x7f0000001000, function) + record(200, 0x7f0000001000, patched) +
            record(300, 0x7f0000000fc0, window) + record(400, 0x7f0000001000, function)[:30])

def write(path, data):
    with open(os.path.join(here, 'corpus', path), 'wb') as f:
        f.write(data)

write('jitdump/synthetic_native.dump', jitdump('<'))
write('jitdump/synthetic_swapped.dump', jitdump('>'))
write('jitdump/synthetic_v8_binary_names.dump', v8_style())
write('jitdump/synthetic_truncated.dump', jitdump('<')[:-21])
write('jitdump/synthetic_v8_unwinding_info.dump', v8_unwinding_info())
write('perf_map/synthetic.map', b'7f0000001000 40 LazyCompile:*run /app/main.js:12\n'
      b'0x7f0000001040 0x20 with 0x prefixes\n7f0000001030 40 overlapping later entry\r\n'
      b'\nff 0 empty\n7f0000002000 10 last line without newline')
write('oprofile_dump/synthetic.dump', oprofile())
write('samples/synthetic_dwarf.jss', samples_dwarf())
write('samples/synthetic_dwarf_truncated.jss', samples_dwarf()[:-40])
write('samples/synthetic_unwound.jss', samples_unwound())
write('samples/synthetic_mixed.jss', samples_mixed())
os.makedirs(os.path.join(here, 'corpus', 'unwind'), exist_ok=True)
write('unwind/synthetic_walk', unwind_walk())
write('unwind/synthetic_expression', unwind_expression())
os.makedirs(os.path.join(here, 'corpus', 'disasm'), exist_ok=True)
write('disasm/synthetic_x86_64', disasm_x86_64())
write('disasm/synthetic_i386', disasm_i386())
os.makedirs(os.path.join(here, 'corpus', 'annotate'), exist_ok=True)
write('annotate/synthetic_att', annotate(0))
write('annotate/synthetic_intel_by_line_unrecorded_tail', annotate(7))
os.makedirs(os.path.join(here, 'corpus', 'derived_rules'), exist_ok=True)
write('derived_rules/synthetic_split_function', derived_rules_split_function())
write('derived_rules/synthetic_frames', derived_rules_frames())
write('derived_rules/synthetic_prologue_call', derived_rules_prologue_call())
write('derived_rules/synthetic_patched_entry', derived_rules_patched_entry())
write('oprofile_dump/synthetic_i386.dump', oprofile(i386=True))
os.makedirs(os.path.join(here, 'corpus', 'registered_frames'), exist_ok=True)
write('registered_frames/synthetic.jsf', registered_frames())
write('oprofile_dump/synthetic_unknown_and_torn.dump', oprofile_unknown_and_torn())
os.makedirs(os.path.join(here, 'corpus', 'jvm_table'), exist_ok=True)
write('jvm_table/synthetic.jsm', jvm_table())
os.makedirs(os.path.join(here, 'corpus', 'captured_code'), exist_ok=True)
write('captured_code/synthetic.jsr', captured_code())
