// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/pprof_writer.h"
#include "jitscope/report/utf8.h"

#include <zlib.h>

#include <map>
#include <tuple>

#include "pprof_profile.pb.h"

namespace jitscope::report {
namespace {

namespace pb = perftools::profiles;

class ProfileEncoder {
 public:
  explicit ProfileEncoder(const Profile& profile) : profile_(profile) { String(""); }

  pb::Profile Encode() && {
    AddValueType(out_.add_sample_type(), "samples", "count");
    AddValueType(out_.add_sample_type(), "cpu", "nanoseconds");
    AddValueType(out_.mutable_period_type(), "cpu", "nanoseconds");
    out_.set_period(static_cast<int64_t>(profile_.sample_period_ns));
    out_.set_duration_nanos(static_cast<int64_t>(profile_.end_time_ns - profile_.start_time_ns));
    if (!profile_.command.empty()) out_.add_comment(String("jitscope report: " + profile_.command));
    for (const std::string& warning : profile_.warnings)
      out_.add_comment(String("warning: " + warning));
    std::vector<uint32_t> run;
    for (const Stack& stack : profile_.stacks) {
      // The samples whose callers the frame-pointer chain guessed are a sample of their own, of
      // the same locations, labelled: pprof draws both as one stack.
      if (stack.guessed_samples < stack.samples) {
        AddSample(stack, stack.samples - stack.guessed_samples, run);
      }
      if (stack.guessed_samples > 0) {
        pb::Label* label = AddSample(stack, stack.guessed_samples, run)->add_label();
        label->set_key(String("unwinding"));
        label->set_str(String("frame-pointer chain"));
      }
    }
    return std::move(out_);
  }

 private:
  pb::Sample* AddSample(const Stack& stack, uint64_t samples, std::vector<uint32_t>& run) {
    pb::Sample* sample = out_.add_sample();
    // Frames leaf first; an inline run ends at its first frame that is not inlined.
    for (uint32_t frame : stack.frames) {
      run.push_back(frame);
      if (profile_.locations[frame].inlined) continue;
      sample->add_location_id(LocationId(run));
      run.clear();
    }
    if (!run.empty()) sample->add_location_id(LocationId(run));  // a run cut off at the root
    run.clear();
    sample->add_value(static_cast<int64_t>(samples));
    sample->add_value(static_cast<int64_t>(samples * profile_.sample_period_ns));
    return sample;
  }

  int64_t String(const std::string& s) {
    auto [it, inserted] = strings_.try_emplace(s, out_.string_table_size());
    if (inserted) out_.add_string_table(ValidUtf8(s));  // protobuf strings must be UTF-8
    return it->second;
  }

  void AddValueType(pb::ValueType* type, const std::string& name, const std::string& unit) {
    type->set_type(String(name));
    type->set_unit(String(unit));
  }

  uint64_t MappingId(const std::string& module) {
    auto [it, inserted] = mappings_.try_emplace(module, mappings_.size() + 1);
    if (inserted) {
      pb::Mapping* mapping = out_.add_mapping();
      mapping->set_id(it->second);
      mapping->set_filename(String(module.empty() ? "[unknown]" : module));
      mapping->set_has_functions(true);
      mapping->set_has_filenames(true);
      mapping->set_has_line_numbers(true);
      mapping->set_has_inline_frames(true);
    }
    return it->second;
  }

  uint64_t FunctionId(const Location& l) {
    auto [it, inserted] =
        functions_.try_emplace({l.function, l.file, l.module}, functions_.size() + 1);
    if (inserted) {
      pb::Function* function = out_.add_function();
      function->set_id(it->second);
      function->set_name(String(l.function));
      function->set_system_name(String(l.function));
      function->set_filename(String(l.file));
    }
    return it->second;
  }

  uint64_t LocationId(const std::vector<uint32_t>& run) {
    auto [it, inserted] = locations_.try_emplace(run, locations_.size() + 1);
    if (inserted) {
      pb::Location* location = out_.add_location();
      location->set_id(it->second);
      // The outermost frame of the run holds the code: its module is the mapping.
      location->set_mapping_id(MappingId(profile_.locations[run.back()].module));
      for (uint32_t frame : run) {
        const Location& l = profile_.locations[frame];
        pb::Line* line = location->add_line();
        line->set_function_id(FunctionId(l));
        line->set_line(l.line);
      }
    }
    return it->second;
  }

  const Profile& profile_;
  pb::Profile out_;
  std::map<std::string, int64_t> strings_;
  std::map<std::string, uint64_t> mappings_;
  // By name, file and module: one name in two modules (a JIT's tiers) is two functions, each
  // in its module's mapping.
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> functions_;
  std::map<std::vector<uint32_t>, uint64_t> locations_;
};

base::StatusOr<std::string> Gzip(const std::string& bytes) {
  z_stream stream{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return base::Status::Error("gzip: deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, bytes.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) return base::Status::Error("gzip: deflate failed (%d)", result);
  return out;
}

}  // namespace

base::StatusOr<std::string> RenderPprof(const Profile& profile) {
  const pb::Profile encoded = ProfileEncoder(profile).Encode();
  std::string bytes;
  if (!encoded.SerializeToString(&bytes)) return base::Status::Error("pprof: serialization failed");
  return Gzip(bytes);
}

}  // namespace jitscope::report
