// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The on-disk layout of the native trace (jit-<pid>.jsc), byte for byte. The prose description
// is docs/trace-format.md; this header is the single source of truth for the numbers.
//
// Why this shape: the collector must get every acknowledged record into the file without a
// syscall per event and without a global lock (docs/architecture.md, "Files and safety"). So the
// writer maps the file MAP_SHARED and each thread claims a private *chunk* of it; a thread appends
// records to its own chunk and publishes each one by storing its 8-byte header last. A store
// into a shared file mapping is in the page cache the moment it is made, so a SIGKILL right
// after iJIT_NotifyEvent returns loses nothing.
//
// Everything is little-endian and made of fixed-width fields with explicit padding, so 32- and
// 64-bit writers produce the same format. The writer and the reader copy these structs to and from
// the file as they are, so that claim rests on two checks at the end of this file, compiled by
// every build including the i386 one (cmake/lib32.cmake): the host is little-endian, and no struct
// has padding. Without padding a struct of fixed-width fields has the same offsets under every
// ABI (i386 aligns uint64_t to 4, x86-64 to 8: only padding could differ). The end-to-end proof
// is tests/collector/collector_e2e_test.cc: an i386 client's trace reads back, on x86-64, exactly
// like an x86-64 client's.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace jitscope::trace {

// The only place the format version lives. Bump it on any incompatible change.
// Version 2 added the ITT API's records (kIttString … kIttCounterValue): a version-1 reader would
// skip them as unknown and show a trace without its timeline, so it refuses the file instead.
// Readers read every version from kOldestFormatVersion on: a version-1 trace is a version-2 trace
// without ITT records.
inline constexpr uint32_t kFormatVersion = 2;
inline constexpr uint32_t kOldestFormatVersion = 1;

inline constexpr char kFileMagic[8] = {'J', 'S', 'C', 'T', 'R', 'A', 'C', 'E'};
inline constexpr uint32_t kChunkMagic = 0x4B43534A;  // "JSCK" on disk
// Chunks start on granule boundaries. A reader that finds no chunk magic at a boundary (a
// claimed-but-never-written chunk, or the unused tail of the file) moves one granule on.
inline constexpr uint32_t kGranule = 4096;

// Offset 0 of the file. The first chunk starts at `header_size`, a multiple of `granule`.
struct FileHeader {
  char magic[8];                // kFileMagic
  uint32_t version;             // kFormatVersion
  uint32_t header_size;         // bytes from the start of the file to the first chunk
  uint32_t granule;             // chunk alignment in bytes (kGranule when written)
  uint32_t pid;                 // process that wrote the trace
  uint64_t start_monotonic_ns;  // CLOCK_MONOTONIC when the trace was created
  uint64_t start_realtime_ns;   // CLOCK_REALTIME at the same moment, to show wall time
  uint32_t pointer_size;        // writer's sizeof(void*): 4 or 8 (informational)
  uint32_t exe_path_size;       // bytes of the executable path that follow this struct
  // char exe_path[exe_path_size];  (no terminating NUL)
};
static_assert(sizeof(FileHeader) == 48);

// Optional, in the header after the executable path (at the next multiple of 8): which program
// image of the process wrote the trace. An exec starts a new image in the same process, with the
// same pid, whose collector writes a trace of its own; method ids start over there, and no code
// of the old image runs after the exec. Readers that predate it pass over it with the header.
inline constexpr char kImageMagic[8] = {'J', 'S', 'C', 'I', 'M', 'A', 'G', 'E'};
struct ImageExtension {
  char magic[8];   // kImageMagic
  uint8_t id[16];  // the kernel's AT_RANDOM bytes of the exec (getauxval(3)): the same in every
                   // trace one image writes, different after each exec; all zero: unknown
};
static_assert(sizeof(ImageExtension) == 24);

// At the start of every chunk. `magic` is stored last, so a chunk whose magic is present has a
// valid tid and size.
struct ChunkHeader {
  uint32_t magic;  // kChunkMagic
  uint32_t tid;    // the thread that owns every record in this chunk
  uint64_t size;   // bytes in the chunk, header included; a multiple of the granule
};
static_assert(sizeof(ChunkHeader) == 16);

enum class RecordType : uint16_t {
  kCode = 1,         // METHOD_LOAD_FINISHED (13), _V2 (21), _V3 (22), INLINE_LOAD (16), UPDATE (15)
  kRangeUpdate = 2,  // METHOD_UPDATE_V2 (17)
  kUnload = 3,       // METHOD_UNLOAD_START (14)
  kShutdown = 4,     // SHUTDOWN (2)
  kRejected = 5,     // an event the collector refused, with the reason
  // OProfile's agent API (opagent.h, OProfile's guide). Appended in format version 1: a reader that
  // predates them counts them as unknown records and skips them.
  kOprofileOpen = 6,        // op_open_agent
  kOprofileClose = 7,       // op_close_agent
  kOprofileCodeLoad = 8,    // op_write_native_code
  kOprofileDebugLines = 9,  // op_write_debug_line_info
  kOprofileUnload = 10,     // op_unload_native_code
  // The machine code of an Intel-API region, written right after its kCode (a top-level load or
  // METHOD_UPDATE) or kRangeUpdate (of code) record. Appended in format version 1: an older
  // reader skips it as unknown, and a trace without it (an older one, or JITSCOPE_CODE_BYTES=0)
  // simply has no code to show.
  kCodeBytes = 11,
  // A chain of traces (JITSCOPE_MAX_SIZE, docs/trace-format.md "Chains"). Appended in format
  // version 1: an older reader skips both as unknown and reads the snapshot records as plain ones.
  kChainLink = 12,    // the first record of jit-<pid>.N.jsc: which file it continues
  kSnapshotEnd = 13,  // the snapshot of the live code that follows the link is complete
  // The ITT API (ittnotify: domains, string handles, tasks, frames, markers, thread names,
  // counters), from format version 2 on. Names are interned: a string record gives a number to a
  // domain's, a task's or a counter's name once, and the records after it refer to the number.
  kIttString = 14,        // __itt_domain_create, __itt_string_handle_create, a counter's names
  kIttThreadName = 15,    // __itt_thread_set_name
  kIttBegin = 16,         // a task, overlapped task, region or frame begins; a task group
  kIttEnd = 17,           // … ends
  kIttMarker = 18,        // __itt_marker: an instant
  kIttCounter = 19,       // __itt_counter_create(_typed): a counter and its value type
  kIttCounterValue = 20,  // a counter's value after an __itt_counter_* call changed it
};
inline constexpr RecordType kFirstRecordType = RecordType::kCode;
inline constexpr RecordType kLastRecordType = RecordType::kIttCounterValue;

// Every record starts with this. The writer stores `size`/`type`/`flags` as one 8-byte word
// after the body, so a zero word means "no record here (yet)": the end of the chunk's records,
// or a record torn by a crash. Records are 8-byte aligned; `size` includes this header.
struct RecordHeader {
  uint32_t size;
  uint16_t type;   // RecordType
  uint16_t flags;  // kRecordFlag* bits; 0 in files written before chains
};
static_assert(sizeof(RecordHeader) == 8);

// The record repeats, in a later file of a chain, one that an earlier file holds: part of the
// snapshot of live code, or an event that arrived while the collector moved to the next file.
// A reader that has the earlier file skips it.
inline constexpr uint16_t kRecordFlagSnapshot = 1;

// Body of kCode. Followed by `line_count` LineEntry values, then the present strings in the
// order name, class_file, source_file, module (no NULs), then zero padding to 8 bytes.
inline constexpr uint32_t kAbsentString = 0xFFFFFFFF;
struct CodeRecord {
  uint64_t timestamp;  // CLOCK_MONOTONIC ns when the event arrived
  uint64_t address;    // method_load_address
  uint32_t api_event;  // the iJVM_EVENT_TYPE_* value it was reported with
  uint32_t method_id;
  uint32_t parent_method_id;  // INLINE_LOAD only, else 0
  uint32_t size;              // method_size
  uint32_t class_id;          // LOAD_FINISHED only (obsolete field, kept for completeness)
  uint32_t arch;              // iJIT_CodeArchitecture, V3 only, else 0
  uint32_t line_count;
  // String sizes in bytes; kAbsentString when the caller passed NULL (NULL and "" differ).
  uint32_t name_size;
  uint32_t class_file_size;
  uint32_t source_file_size;
  uint32_t module_size;
  uint32_t reserved;  // 0
};
static_assert(sizeof(CodeRecord) == 64);

// One entry of a line table, exactly the layout of Intel's LineNumberInfo: `offset` *ends* the
// code range that starts at the previous entry's offset (or 0). Stored as reported.
struct LineEntry {
  uint32_t offset;
  uint32_t line;
};
static_assert(sizeof(LineEntry) == 8);

// Body of kRangeUpdate, followed by the data_format string (if present) and padding.
struct RangeUpdateRecord {
  uint64_t timestamp;
  uint64_t address;
  uint32_t size;
  uint32_t segment_type;      // iJIT_SegmentType
  uint32_t data_format_size;  // UINT32_MAX when data_format was NULL
  uint32_t reserved;
};
static_assert(sizeof(RangeUpdateRecord) == 32);

struct UnloadRecord {
  uint64_t timestamp;
  uint32_t method_id;
  uint32_t reserved;
};
static_assert(sizeof(UnloadRecord) == 16);

struct ShutdownRecord {
  uint64_t timestamp;
};
static_assert(sizeof(ShutdownRecord) == 8);

struct RejectedRecord {
  uint64_t timestamp;
  uint32_t api_event;  // the event type the caller passed
  uint32_t reason;     // RejectReason
};
static_assert(sizeof(RejectedRecord) == 16);

// Body of kOprofileOpen and kOprofileClose.
struct OprofileAgentRecord {
  uint64_t timestamp;
  uint32_t agent;  // 1, 2, ... in the order the process opened its handles
  uint32_t reserved;
};
static_assert(sizeof(OprofileAgentRecord) == 16);

// Body of kOprofileCodeLoad, followed by the name (no NUL), then `code_bytes` bytes of code,
// then zero padding to 8 bytes.
struct OprofileCodeLoadRecord {
  uint64_t timestamp;
  uint64_t address;       // vma
  uint64_t code_address;  // the `code` pointer; 0 when the caller passed NULL
  uint32_t size;          // code_size
  uint32_t agent;
  uint32_t name_size;
  uint32_t code_bytes;  // size when code_address != 0, else 0
};
static_assert(sizeof(OprofileCodeLoadRecord) == 40);

// One entry of an op_write_debug_line_info line table. Unlike Intel's end-offset LineEntry the
// address is absolute and *starts* the range of its line, which runs to the next entry's address
// (the array "can contain holes", OProfile's guide); every entry names its own file.
struct OprofileLineEntry {
  uint64_t address;  // as the caller passed it (normally inside [vma, vma + size))
  uint32_t line;
  uint32_t file;  // index into the record's file table
};
static_assert(sizeof(OprofileLineEntry) == 16);

// Body of kOprofileDebugLines, followed by `line_count` OprofileLineEntry values, `file_count`
// u32 end offsets of the file names (ascending), the `names_size` bytes of the names
// concatenated (no NULs), then zero padding to 8 bytes.
struct OprofileDebugLinesRecord {
  uint64_t timestamp;
  uint64_t code_address;  // the `code` pointer the caller passed
  uint64_t address;       // vma of the live load it was resolved to
  uint32_t size;          // code_size of that load
  uint32_t agent;
  uint32_t line_count;
  uint32_t file_count;
  uint32_t names_size;
  uint32_t reserved;
};
static_assert(sizeof(OprofileDebugLinesRecord) == 48);

// Body of kOprofileUnload.
struct OprofileUnloadRecord {
  uint64_t timestamp;
  uint64_t address;  // vma of the load that ended
  uint32_t size;     // its code_size
  uint32_t agent;
};
static_assert(sizeof(OprofileUnloadRecord) == 24);

// Body of kCodeBytes, followed by `byte_count` bytes of code and padding. `byte_count` is `size`
// when the region could be read, and 0 when the engine reported memory that is not readable.
struct CodeBytesRecord {
  uint64_t timestamp;
  uint64_t address;     // the region's start, as in the record before it
  uint32_t size;        // the region's size
  uint32_t byte_count;  // bytes that follow
};
static_assert(sizeof(CodeBytesRecord) == 24);

// Body of kChainLink, followed by the previous file's name (no directory, no NUL) and padding.
struct ChainLinkRecord {
  uint64_t timestamp;
  uint64_t previous_size;  // bytes of the previous file when this one was started
  uint32_t sequence;       // 1 for the first continuation, 2 for the next, ...
  uint32_t name_size;      // bytes of the previous file's name
};
static_assert(sizeof(ChainLinkRecord) == 24);

// Body of kSnapshotEnd.
struct SnapshotEndRecord {
  uint64_t timestamp;
  uint64_t records;  // snapshot records written before it
};
static_assert(sizeof(SnapshotEndRecord) == 16);
// ---- The ITT API (format version 2) ----

// An __itt_id without its d3, which ittnotify.h reserves and __itt_id_make sets to 0. {0, 0} is
// __itt_null.
struct IttId {
  uint64_t d1;
  uint64_t d2;
};
static_assert(sizeof(IttId) == 16);

// Body of kIttString, followed by `size` bytes of the string (no NUL) and padding. Numbers start
// at 1 and are never reused in a process; 0 means "no name".
struct IttStringRecord {
  uint64_t timestamp;
  uint32_t string;  // the number the records after it use
  uint32_t size;
};
static_assert(sizeof(IttStringRecord) == 16);

// Body of kIttThreadName, followed by `size` bytes of the name and padding. The thread is named
// here and not only by the chunk: a chain's snapshot repeats the record from another thread.
struct IttThreadNameRecord {
  uint64_t timestamp;
  uint32_t tid;  // the thread that named itself
  uint32_t size;
};
static_assert(sizeof(IttThreadNameRecord) == 16);

// What an ITT begin or end record starts or ends (IttBeginRecord::kind, IttEndRecord::kind).
enum class IttKind : uint32_t {
  kTask = 1,            // __itt_task_begin(_fn) / __itt_task_end: nested, per thread
  kOverlappedTask = 2,  // __itt_task_begin_overlapped / _end_overlapped: matched by id
  kRegion = 3,          // __itt_region_begin / _end: matched by id
  kFrame = 4,           // __itt_frame_begin_v3 / _end_v3 (and _submit_v3): per domain
  kTaskGroup = 5,       // __itt_task_group: names `id` as a group; begins nothing, never ends
};
inline constexpr uint32_t kMaxIttKind = 5;

// Body of kIttBegin.
struct IttBeginRecord {
  uint64_t timestamp;
  IttId id;           // the caller's id; {0, 0} for __itt_null
  IttId parent;       // the caller's parent id; {0, 0} for __itt_null
  uint64_t function;  // __itt_task_begin_fn's function address, else 0
  uint32_t domain;    // string number of the domain's name
  uint32_t name;      // string number of the name; 0 when the caller passed no handle
  uint32_t kind;      // IttKind
  uint32_t reserved;  // 0
};
static_assert(sizeof(IttBeginRecord) == 64);

// Body of kIttEnd.
struct IttEndRecord {
  uint64_t timestamp;
  IttId id;         // the id the call names ({0, 0} for __itt_task_end, which has none)
  uint32_t domain;  // string number of the domain's name
  uint32_t kind;    // IttKind
};
static_assert(sizeof(IttEndRecord) == 32);

// Body of kIttMarker.
struct IttMarkerRecord {
  uint64_t timestamp;
  IttId id;
  uint32_t domain;
  uint32_t name;   // 0 when the caller passed no handle
  uint32_t scope;  // __itt_scope as passed: 1 global, 2 track group, 3 track, 4 task, 5 marker
  uint32_t reserved;
};
static_assert(sizeof(IttMarkerRecord) == 40);

// Body of kIttCounter. Counters are numbered from 1 in their own space (not strings').
struct IttCounterRecord {
  uint64_t timestamp;
  uint32_t counter;
  uint32_t name;    // string number
  uint32_t domain;  // string number; 0 when the counter was created without a domain
  uint32_t type;    // __itt_metadata_type: 1 u64, 2 s64, 3 u32, 4 s32, 5 u16, 6 s16, 7 float,
                    // 8 double; 0 (unknown) reads as u64
};
static_assert(sizeof(IttCounterRecord) == 24);

// Body of kIttCounterValue.
struct IttCounterValueRecord {
  uint64_t timestamp;
  uint64_t value;  // integer types: the value (signed ones in two's complement); float and
                   // double: the bits of the value as a double
  uint32_t counter;
  uint32_t reserved;
};
static_assert(sizeof(IttCounterValueRecord) == 24);

static_assert(std::endian::native == std::endian::little,
              "the trace is little-endian and written in host byte order");
template <typename... Structs>
constexpr bool kWithoutPadding = (std::has_unique_object_representations_v<Structs> && ...);
static_assert(
    kWithoutPadding<FileHeader, ChunkHeader, RecordHeader, CodeRecord, LineEntry, RangeUpdateRecord,
                    UnloadRecord, ShutdownRecord, RejectedRecord, OprofileAgentRecord,
                    OprofileCodeLoadRecord, OprofileLineEntry, OprofileDebugLinesRecord,
                    OprofileUnloadRecord, CodeBytesRecord, ChainLinkRecord, SnapshotEndRecord,
                    IttId, IttStringRecord, IttThreadNameRecord, IttBeginRecord, IttEndRecord,
                    IttMarkerRecord, IttCounterRecord, IttCounterValueRecord>,
    "on-disk structs must have no padding, so that every ABI lays them out alike");

constexpr size_t AlignTo8(size_t n) { return (n + 7) & ~size_t{7}; }

}  // namespace jitscope::trace
