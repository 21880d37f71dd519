// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/oprofile_dump_writer.h"

#include <cstddef>
#include <cstring>
#include <string_view>

#include "jitscope/base/files.h"

namespace jitscope::formats {
namespace {

// The target (and so the layout) of the process this library runs in: OProfile's libopagent
// writes its structs as its compiler lays them out, and so do we, in lib/ and in lib32/.
#if defined(__x86_64__) && defined(__LP64__)
#define JITSCOPE_OPROFILE_HOST_TARGET kOprofileBfdX86_64
#elif defined(__i386__)
#define JITSCOPE_OPROFILE_HOST_TARGET kOprofileBfdI386
#elif defined(__aarch64__) && defined(__LP64__)
#define JITSCOPE_OPROFILE_HOST_TARGET kOprofileBfdAarch64
#endif

// OProfile's `struct jitheader` and `unsigned long` as this compiler lays them out: the host
// target's layout must be exactly that (OProfile's jitdump.h), checked in every build, lib32's too.
struct NativeJitHeader {
  uint32_t magic, version, total_size, bfd_arch, bfd_mach;
  uint64_t timestamp;
};
#ifdef JITSCOPE_OPROFILE_HOST_TARGET
static_assert(sizeof(NativeJitHeader) == JITSCOPE_OPROFILE_HOST_TARGET.layout.header_size &&
                  sizeof(unsigned long) == JITSCOPE_OPROFILE_HOST_TARGET.layout.line_vma_size,
              "the host's OProfile dump layout is not the compiler's native one");
#endif

void Append(std::vector<uint8_t>& buffer, const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  buffer.insert(buffer.end(), bytes, bytes + size);
}

void AppendCString(std::vector<uint8_t>& buffer, std::string_view text) {
  Append(buffer, text.data(), text.size());
  buffer.push_back(0);
}

// Zero bytes up to the next multiple of 8, as libopagent pads every record and the header.
void Pad(std::vector<uint8_t>& buffer) { buffer.resize(OprofilePadded(buffer.size()), 0); }

// total_size is filled in once the record is assembled.
OprofileRecordPrefix Prefix(OprofileRecordId id, uint64_t timestamp_s) {
  return OprofileRecordPrefix{static_cast<uint32_t>(id), 0, timestamp_s};
}

// Records stay below 4 GiB: total_size is a u32. (A single code load cannot exceed it on its
// own, code_size being a u32, but name + code can.)
bool FitsRecord(size_t size) { return size <= UINT32_MAX - kOprofileAlignment; }

}  // namespace

base::StatusOr<OprofileBfdTarget> OprofileDumpWriter::HostTarget() {
#ifdef JITSCOPE_OPROFILE_HOST_TARGET
  return JITSCOPE_OPROFILE_HOST_TARGET;
#else
  return base::Status::Error("no OProfile BFD target is known for this architecture");
#endif
}

base::StatusOr<OprofileDumpWriter> OprofileDumpWriter::Create(base::ScopedFd fd,
                                                              const OprofileBfdTarget& target,
                                                              uint64_t timestamp_s) {
  const OprofileLayout layout = target.layout;
  if (layout != kOprofileLayoutLp64 && layout != kOprofileLayoutI386) {
    return base::Status::Error("the OProfile dump writer writes the LP64 and i386 layouts only");
  }
  OprofileDumpWriter writer(std::move(fd), layout);
  const auto total_size =
      static_cast<uint32_t>(OprofilePadded(layout.header_size + std::strlen(target.name) + 1));
  if (layout == kOprofileLayoutI386) {
    const OprofileHeaderI386 header = {kOprofileMagic, kOprofileVersion, total_size,
                                       target.arch,    target.mach,      timestamp_s};
    Append(writer.buffer_, &header, sizeof(header));
  } else {
    const OprofileHeader header = {
        kOprofileMagic, kOprofileVersion, total_size, target.arch, target.mach, 0, timestamp_s};
    Append(writer.buffer_, &header, sizeof(header));
  }
  AppendCString(writer.buffer_, target.name);
  Pad(writer.buffer_);
  RETURN_IF_ERROR(writer.Flush());
  return writer;
}

base::Status OprofileDumpWriter::Flush() {
  base::Status status = base::WriteAll(fd_.get(), buffer_.data(), buffer_.size());
  buffer_.clear();
  return status;
}

base::Status OprofileDumpWriter::Write(const trace::Event& event, uint64_t timestamp_s) {
  buffer_.clear();
  if (const auto* load = std::get_if<trace::OprofileCodeLoadEvent>(&event)) {
    // Code bytes are stored only when the caller gave a code pointer; code_addr 0 tells
    // opjitconv that none follow (parse_code_load).
    const bool with_code = load->code_address != 0;
    const size_t size =
        sizeof(OprofileCodeLoad) + load->name.size() + 1 + (with_code ? load->code.size() : 0);
    if (!FitsRecord(size)) return base::Status::Error("code load record exceeds 4 GiB");
    OprofileCodeLoad record{};
    record.prefix = Prefix(OprofileRecordId::kCodeLoad, timestamp_s);
    record.vma = load->address;
    record.code_addr = load->code_address;
    record.code_size = load->size;
    Append(buffer_, &record, sizeof(record));
    AppendCString(buffer_, load->name);
    if (with_code) Append(buffer_, load->code.data(), load->code.size());
  } else if (const auto* lines = std::get_if<trace::OprofileDebugLinesEvent>(&event)) {
    if (lines->lines.empty()) return base::Status::Ok();  // libopagent writes nothing either
    OprofileDebugInfo record{};
    record.prefix = Prefix(OprofileRecordId::kCodeDebugInfo, timestamp_s);
    record.code_addr = lines->code_address;
    record.nr_entry = static_cast<uint32_t>(lines->lines.size());
    Append(buffer_, &record, sizeof(record));
    for (const auto& entry : lines->lines) {
      // Packed: the layout's vma (8 or 4 bytes), 4-byte line, the name and its NUL, no alignment
      // in between.
      if (layout_.line_vma_size == sizeof(uint32_t)) {
        // A 32-bit process's addresses fit; only a 64-bit caller choosing this layout could not.
        if (entry.address > UINT32_MAX) {
          buffer_.clear();
          return base::Status::Error("line address %#llx does not fit the i386 layout's vma",
                                     static_cast<unsigned long long>(entry.address));
        }
        const auto vma = static_cast<uint32_t>(entry.address);
        Append(buffer_, &vma, sizeof(vma));
      } else {
        const uint64_t vma = entry.address;
        Append(buffer_, &vma, sizeof(vma));
      }
      const uint32_t line = entry.line;
      Append(buffer_, &line, sizeof(line));
      AppendCString(buffer_, lines->files[entry.file]);
      if (!FitsRecord(buffer_.size())) {
        buffer_.clear();
        return base::Status::Error("debug info record exceeds 4 GiB");
      }
    }
  } else if (const auto* unload = std::get_if<trace::OprofileUnloadEvent>(&event)) {
    OprofileCodeUnload record{};
    record.prefix = Prefix(OprofileRecordId::kCodeUnload, timestamp_s);
    record.vma = unload->address;
    Append(buffer_, &record, sizeof(record));
  } else if (std::holds_alternative<trace::OprofileCloseEvent>(event)) {
    const OprofileCodeClose record{Prefix(OprofileRecordId::kCodeClose, timestamp_s)};
    Append(buffer_, &record, sizeof(record));
  } else if (std::holds_alternative<trace::OprofileOpenEvent>(event)) {
    return base::Status::Ok();  // the header was written by Create()
  } else {
    return base::Status::Error("the OProfile dump has no record for this event");
  }
  Pad(buffer_);
  // total_size (offset 4 of the prefix) covers the whole record, padding included.
  const auto total_size = static_cast<uint32_t>(buffer_.size());
  std::memcpy(buffer_.data() + offsetof(OprofileRecordPrefix, total_size), &total_size,
              sizeof(total_size));
  return Flush();
}

}  // namespace jitscope::formats
