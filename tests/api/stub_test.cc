// Copyright 2026 The jitscope Authors
// SPDX-License-Identifier: Apache-2.0

// The stub's loading matrix and its behaviour with and without a collector. The stub's state is
// process-global and sticky, so every scenario runs stub_probe (stub_probe.cc) in a fresh process
// with its own environment and compares the probe's output exactly. Fake collectors
// (fake_collector.c) count and record what reaches them. Expected behaviour: Intel's
// stub (docs/sources.md), and the header comment of
// src/jitscope/api/jitprofiling.c.

#include <dlfcn.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/process.h"

namespace {

constexpr const char* kCollectorEnv =
    sizeof(void*) == 4 ? "INTEL_JIT_PROFILER32" : "INTEL_JIT_PROFILER64";

constexpr std::chrono::seconds kProbeTimeout{30};

using ProbeRun = jitscope::test_support::ProcessResult;

// Runs `probe commands...` with the collector variable unset (nullopt) or set to `collector`,
// and everything else of this process's environment. A probe that hangs (a deadlocked stub) is
// killed after kProbeTimeout rather than stalling the whole test run.
ProbeRun RunProbe(const std::string& probe, const std::optional<std::string>& collector,
                  const std::vector<std::string>& commands) {
  std::vector<std::string> argv{probe};
  argv.insert(argv.end(), commands.begin(), commands.end());
  std::map<std::string, std::string> env;
  if (collector) env[kCollectorEnv] = *collector;
  ProbeRun run = jitscope::test_support::RunProgram(
      argv, env,
      {.unset = {"INTEL_JIT_PROFILER64", "INTEL_JIT_PROFILER32"}, .timeout = kProbeTimeout});
  EXPECT_TRUE(run.started) << run.Describe();
  EXPECT_FALSE(run.timed_out) << probe << " did not finish within " << kProbeTimeout.count()
                              << " s";
  return run;
}

std::string Lines(std::initializer_list<const char*> lines) {
  std::string text;
  for (const char* line : lines) (text += line) += '\n';
  return text;
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

const std::string kProbe = JITSCOPE_STUB_PROBE;
const std::string kOk = JITSCOPE_FAKE_COLLECTOR_OK;

// ---- Loading (Intel's stub) ----

TEST(StubLoadingTest, VariableUnsetMeansNoCollector) {
  const ProbeRun run = RunProbe(
      kProbe, std::nullopt, {"active", "notify", "13", "load", "notify", "2", "null", "collector"});
  EXPECT_EQ(0, run.exit_code);
  EXPECT_EQ(Lines({"active=0", "notify(13,load)=0 forwarded=0", "notify(2,null)=0 forwarded=0",
                   "collector=absent"}),
            run.out);
  EXPECT_EQ("", run.err);  // not asking for a collector is not an error
}

TEST(StubLoadingTest, EmptyVariableCountsAsUnset) {
  const ProbeRun run = RunProbe(kProbe, "", {"active", "notify", "13", "load"});
  EXPECT_EQ(Lines({"active=0", "notify(13,load)=0 forwarded=0"}), run.out);
  EXPECT_EQ("", run.err);
}

TEST(StubLoadingTest, UnloadablePathFailsOnceAndSaysWhy) {
  const std::string bad = "/nonexistent/libjitscope-no-such-collector.so";
  const ProbeRun run = RunProbe(kProbe, bad, {"active", "notify", "13", "load", "active"});
  EXPECT_EQ(Lines({"active=0", "notify(13,load)=0 forwarded=0", "active=0"}), run.out);
  EXPECT_EQ(1u, Count(run.err, "jitprofiling:")) << run.err;
  EXPECT_NE(std::string::npos, run.err.find(kCollectorEnv)) << run.err;
  EXPECT_NE(std::string::npos, run.err.find(bad)) << run.err;
}

TEST(StubLoadingTest, MissingNotifyEventFailsBeforeInitialize) {
  const ProbeRun run = RunProbe(kProbe, JITSCOPE_FAKE_COLLECTOR_NO_NOTIFY,
                                {"active", "notify", "13", "load", "collector"});
  // The library stays loaded (its constructors may have run), but Initialize is never called.
  EXPECT_EQ(Lines({"active=0", "notify(13,load)=0 forwarded=0",
                   "collector=loaded initialize_calls=0 notify_calls=0"}),
            run.out);
  EXPECT_EQ(1u, Count(run.err, "jitprofiling:")) << run.err;
  EXPECT_NE(std::string::npos, run.err.find("NotifyEvent")) << run.err;
}

TEST(StubLoadingTest, MissingInitializeMeansNoCollector) {
  const ProbeRun run = RunProbe(kProbe, JITSCOPE_FAKE_COLLECTOR_NO_INITIALIZE,
                                {"notify", "13", "load", "active", "collector"});
  EXPECT_EQ(Lines({"notify(13,load)=0 forwarded=0", "active=0",
                   "collector=loaded initialize_calls=0 notify_calls=0"}),
            run.out);
  EXPECT_NE(std::string::npos, run.err.find("Initialize")) << run.err;
}

TEST(StubLoadingTest, InitializeReturningZeroIsTheModeButEventsStillFlow) {
  // Intel's stub does not check the mode before forwarding; neither do we.
  const ProbeRun run = RunProbe(kProbe, JITSCOPE_FAKE_COLLECTOR_INIT_ZERO,
                                {"active", "notify", "13", "load", "collector"});
  EXPECT_EQ(Lines({"active=0", "notify(13,load)=113 forwarded=1 type=13 payload=same",
                   "collector=loaded initialize_calls=1 notify_calls=1"}),
            run.out);
  EXPECT_EQ("", run.err);
}

TEST(StubLoadingTest, FailureIsSticky) {
  const ProbeRun run =
      RunProbe(kProbe, std::nullopt,
               {"active", "setenv", kOk, "active", "notify", "13", "load", "collector"});
  EXPECT_EQ(Lines({"active=0", ("env=" + kOk).c_str(), "active=0", "notify(13,load)=0 forwarded=0",
                   "collector=absent"}),
            run.out);
}

TEST(StubLoadingTest, SuccessIsSticky) {
  const ProbeRun run = RunProbe(kProbe, kOk, {"active", "unsetenv", "active"});
  EXPECT_EQ(Lines({"active=1", "env=unset", "active=1"}), run.out);
}

TEST(StubLoadingTest, InitializeRunsOnceWhenEightThreadsRaceTheFirstCall) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    const ProbeRun run = RunProbe(kProbe, kOk, {"race", "8", "collector"});
    EXPECT_EQ(
        Lines({"race active=1 notify=113", "collector=loaded initialize_calls=1 notify_calls=4"}),
        run.out)
        << "attempt " << attempt;
    EXPECT_EQ("", run.err) << "attempt " << attempt;  // sanitizer builds report races here
  }
}

TEST(StubLoadingTest, InitializeCallingBackIntoTheApiDoesNotDeadlock) {
  // The nested call, on the loading thread, answers "nothing running" instead of waiting for the
  // load it is part of. The shared stub is used because its symbols are visible to the collector.
  const ProbeRun run = RunProbe(JITSCOPE_STUB_PROBE_SHARED, JITSCOPE_FAKE_COLLECTOR_REENTRANT,
                                {"active", "reentry", "notify", "13", "load"});
  EXPECT_EQ(
      Lines({"active=1", "reentry=0", "notify(13,load)=113 forwarded=1 type=13 payload=same"}),
      run.out);
}

TEST(StubLoadingTest, ChildForkedDuringTheLoadLoadsTheCollectorItself) {
  // The parent's loader thread does not exist in the child, so the child must not wait for it.
  // Initialize runs twice in the child's copy of the address space: the parent's call that was in
  // flight at fork time, and the child's own.
  const ProbeRun run = RunProbe(kProbe, kOk, {"forkload", "collector"});
  EXPECT_EQ(
      Lines({"forkload child active=1 notify=113 initialize_calls=2", "forkload parent active=1",
             "collector=loaded initialize_calls=1 notify_calls=0"}),
      run.out);
  EXPECT_EQ("", run.err);
}

TEST(StubLoadingTest, ChildForkedInsideTheParentsDlopenRunsWithoutACollector) {
  // glibc leaves such a child's list of loaded objects half-updated: a dlopen there aborts the
  // process (this is how CollectorEndToEnd.ForkedChildrenRecordIntoTheirOwnTraces once died). The
  // child must go on without profiling and say why; the parent's load completes.
  const ProbeRun run = RunProbe(kProbe, JITSCOPE_FAKE_COLLECTOR_SLOW_LOAD, {"forkdlopen"});
  EXPECT_EQ(0, run.exit_code);
  EXPECT_EQ(Lines({"forkdlopen child active=0 notify=0", "forkdlopen parent active=1"}), run.out);
  EXPECT_EQ(1u, Count(run.err, "jitprofiling:")) << run.err;
  EXPECT_TRUE(run.err.starts_with("jitprofiling: profiling is off in process ")) << run.err;
  EXPECT_TRUE(
      run.err.ends_with(": it was forked while its parent was loading the collector, and "
                        "glibc cannot load libraries in such a child\n"))
      << run.err;
}

TEST(StubLoadingTest, RacingFirstCallsWithoutCollectorAgree) {
  EXPECT_EQ(Lines({"race active=0 notify=0"}), RunProbe(kProbe, std::nullopt, {"race", "8"}).out);
  const ProbeRun bad = RunProbe(kProbe, "/nonexistent/collector.so", {"race", "8"});
  EXPECT_EQ(Lines({"race active=0 notify=0"}), bad.out);
  EXPECT_EQ(1u, Count(bad.err, "jitprofiling:")) << bad.err;
}

// ---- Forwarding and validation (Intel's stub) ----

TEST(StubNotifyTest, EveryEventArrivesUnchangedWithTheCollectorsResult) {
  const ProbeRun run = RunProbe(
      kProbe, kOk, {"active", "notify", "13",     "load",      "notify", "14",     "unload",
                    "notify", "15",     "update", "notify",    "16",     "inline", "2000",
                    "1000",   "notify", "17",     "update_v2", "notify", "21",     "v2",
                    "notify", "22",     "v3",     "notify",    "2",      "null",   "collector"});
  EXPECT_EQ(Lines({"active=1", "notify(13,load)=113 forwarded=1 type=13 payload=same",
                   "notify(14,unload)=114 forwarded=1 type=14 payload=same",
                   "notify(15,update)=115 forwarded=1 type=15 payload=same",
                   "notify(16,inline)=116 forwarded=1 type=16 payload=same",
                   "notify(17,update_v2)=117 forwarded=1 type=17 payload=same",
                   "notify(21,v2)=121 forwarded=1 type=21 payload=same",
                   "notify(22,v3)=122 forwarded=1 type=22 payload=same",
                   "notify(2,null)=102 forwarded=1 type=2 payload=same",
                   "collector=loaded initialize_calls=1 notify_calls=8"}),
            run.out);
  EXPECT_EQ("", run.err);
}

TEST(StubNotifyTest, ShutdownIsForwardedAndDoesNotStopLaterEvents) {
  const ProbeRun run =
      RunProbe(kProbe, kOk, {"notify", "2", "null", "notify", "13", "load", "active"});
  EXPECT_EQ(Lines({"notify(2,null)=102 forwarded=1 type=2 payload=same",
                   "notify(13,load)=113 forwarded=1 type=13 payload=same", "active=1"}),
            run.out);
}

TEST(StubNotifyTest, UnknownEventTypesAreForwardedForTheCollectorToJudge) {
  const ProbeRun run = RunProbe(kProbe, kOk,
                                {"notify", "99", "null", "notify", "0", "null", "notify", "19",
                                 "load", "notify", "20", "null"});
  EXPECT_EQ(Lines({"notify(99,null)=199 forwarded=1 type=99 payload=same",
                   "notify(0,null)=100 forwarded=1 type=0 payload=same",
                   "notify(19,load)=119 forwarded=1 type=19 payload=same",
                   "notify(20,null)=120 forwarded=1 type=20 payload=same"}),
            run.out);
}

TEST(StubNotifyTest, NullPayloadIsRejectedWithoutForwarding) {
  const ProbeRun run = RunProbe(
      kProbe, kOk, {"notify", "13", "null", "notify",   "14", "null", "notify", "15", "null",
                    "notify", "16", "null", "notify",   "17", "null", "notify", "21", "null",
                    "notify", "22", "null", "collector"});
  EXPECT_EQ(Lines({"notify(13,null)=0 forwarded=0", "notify(14,null)=0 forwarded=0",
                   "notify(15,null)=0 forwarded=0", "notify(16,null)=0 forwarded=0",
                   "notify(17,null)=0 forwarded=0", "notify(21,null)=0 forwarded=0",
                   "notify(22,null)=0 forwarded=0",
                   "collector=loaded initialize_calls=1 notify_calls=0"}),
            run.out);
}

TEST(StubNotifyTest, MethodIdZeroAndParentIdZeroAreRejected) {
  const ProbeRun run =
      RunProbe(kProbe, kOk, {"notify", "13",     "load",   "0",    "notify", "15",       "update",
                             "0",      "notify", "21",     "v2",   "0",      "notify",   "22",
                             "v3",     "0",      "notify", "16",   "inline", "0",        "1000",
                             "notify", "16",     "inline", "1000", "0",      "collector"});
  EXPECT_EQ(Lines({"notify(13,load)=0 forwarded=0", "notify(15,update)=0 forwarded=0",
                   "notify(21,v2)=0 forwarded=0", "notify(22,v3)=0 forwarded=0",
                   "notify(16,inline)=0 forwarded=0", "notify(16,inline)=0 forwarded=0",
                   "collector=loaded initialize_calls=1 notify_calls=0"}),
            run.out);
}

TEST(StubNotifyTest, UnloadStartIsNotCheckedBeyondItsPayload) {
  // Intel's stub checks no id for UNLOAD_START; the collector finds nothing to
  // unload for id 0 and counts it.
  const ProbeRun run = RunProbe(kProbe, kOk, {"notify", "14", "unload", "0"});
  EXPECT_EQ(Lines({"notify(14,unload)=114 forwarded=1 type=14 payload=same"}), run.out);
}

TEST(StubNotifyTest, IdsBelowTheOldReservedRangeAreForwarded) {
  // Only 0 is invalid in the current API; "not below 999" is the legacy rule (Intel's
  // jitprofiling.h and guide).
  const ProbeRun run = RunProbe(
      kProbe, kOk, {"notify", "13",   "load", "1",      "notify", "13",     "load", "998", "notify",
                    "13",     "load", "999",  "notify", "16",     "inline", "1",    "1",   "notify",
                    "21",     "v2",   "5",    "notify", "22",     "v3",     "998"});
  EXPECT_EQ(Lines({"notify(13,load)=113 forwarded=1 type=13 payload=same",
                   "notify(13,load)=113 forwarded=1 type=13 payload=same",
                   "notify(13,load)=113 forwarded=1 type=13 payload=same",
                   "notify(16,inline)=116 forwarded=1 type=16 payload=same",
                   "notify(21,v2)=121 forwarded=1 type=21 payload=same",
                   "notify(22,v3)=122 forwarded=1 type=22 payload=same"}),
            run.out);
}

// ---- Method ids (Intel's stub; Intel's guide, iJIT_GetNewMethodID) ----

TEST(StubMethodIdTest, IdsStartAt1000AndNeverLoadTheCollector) {
  const ProbeRun run = RunProbe(kProbe, kOk, {"newid", "newid", "collector", "active"});
  EXPECT_EQ(Lines({"id=1000", "id=1001", "collector=absent", "active=1"}), run.out);
}

TEST(StubMethodIdTest, IdsAreUniqueAcrossEightThreads) {
  const ProbeRun run = RunProbe(kProbe, std::nullopt, {"ids", "8", "100000"});
  EXPECT_EQ(Lines({"ids=800000 distinct=800000 zeros=0 min=1000"}), run.out);
}

TEST(StubMethodIdTest, ExhaustedIdsReturnZeroForever) {
  // stub_probe_near_max's copy of the stub starts at UINT_MAX - 2 (JITSCOPE_STUB_TEST_FIRST_ID).
  const ProbeRun run = RunProbe(JITSCOPE_STUB_PROBE_NEAR_MAX, std::nullopt,
                                {"newid", "newid", "newid", "newid", "newid"});
  EXPECT_EQ(Lines({"id=4294967293", "id=4294967294", "id=4294967295", "id=0", "id=0"}), run.out);
}

TEST(StubMethodIdTest, ExhaustionUnderContentionNeverWrapsIntoValidIds) {
  const ProbeRun run = RunProbe(JITSCOPE_STUB_PROBE_NEAR_MAX, std::nullopt, {"ids", "8", "1000"});
  EXPECT_EQ(Lines({"ids=8000 distinct=3 zeros=7997 min=4294967293"}), run.out);
}

// ---- The shared library (src/jitscope/api/jitprofiling.map) ----

TEST(StubSharedLibraryTest, WorksLikeTheStaticOne) {
  const ProbeRun run =
      RunProbe(JITSCOPE_STUB_PROBE_SHARED, kOk, {"active", "notify", "13", "load", "newid"});
  EXPECT_EQ(Lines({"active=1", "notify(13,load)=113 forwarded=1 type=13 payload=same", "id=1000"}),
            run.out);
  EXPECT_EQ(Lines({"active=0"}),
            RunProbe(JITSCOPE_STUB_PROBE_SHARED, std::nullopt, {"active"}).out);
}

TEST(StubSharedLibraryTest, ExportsTheApiUnderItsVersionNode) {
  void* handle = dlopen(JITSCOPE_STUB_SHARED_LIBRARY, RTLD_LAZY | RTLD_LOCAL);
  ASSERT_NE(nullptr, handle) << dlerror();
  for (const char* name : {"iJIT_NotifyEvent", "iJIT_IsProfilingActive", "iJIT_GetNewMethodID"}) {
    EXPECT_NE(nullptr, dlvsym(handle, name, "JITSCOPE_JITPROFILING_1.0")) << name;
  }
  EXPECT_EQ(nullptr, dlsym(handle, "iJIT_RegisterCallbackEx"));  // legacy: not in the library
  dlclose(handle);
}

// ---- Legacy API (JITSCOPE_JIT_LEGACY_API; the legacy stubs) ----

TEST(StubLegacyTest, CallbackHearsNoNotificationsWithoutCollector) {
  const ProbeRun run = RunProbe(JITSCOPE_STUB_PROBE_LEGACY, std::nullopt, {"callback", "active"});
  EXPECT_EQ(Lines({"callback calls=1 flags=0", "active=0"}), run.out);
}

TEST(StubLegacyTest, CallbackIsSilentWithCollector) {
  const ProbeRun run = RunProbe(JITSCOPE_STUB_PROBE_LEGACY, kOk, {"callback", "active"});
  EXPECT_EQ(Lines({"callback calls=0 flags=-1", "active=1"}), run.out);
}

TEST(StubLegacyTest, NidsEventsAreForwarded) {
  const ProbeRun run =
      RunProbe(JITSCOPE_STUB_PROBE_LEGACY, kOk, {"notify", "19", "load", "notify", "20", "load"});
  EXPECT_EQ(Lines({"notify(19,load)=119 forwarded=1 type=19 payload=same",
                   "notify(20,load)=120 forwarded=1 type=20 payload=same"}),
            run.out);
}

TEST(StubLegacyTest, FinalizeProcessUnloadsTheCollectorForGood) {
  const ProbeRun run =
      RunProbe(JITSCOPE_STUB_PROBE_LEGACY, kOk,
               {"notify", "13", "load", "finalize", "active", "notify", "13", "load", "collector"});
  EXPECT_EQ(Lines({"notify(13,load)=113 forwarded=1 type=13 payload=same", "finalize", "active=0",
                   "notify(13,load)=0 forwarded=0", "collector=absent"}),
            run.out);
}

TEST(StubLegacyTest, FinalizeProcessBeforeAnyCallMeansNoCollector) {
  const ProbeRun run =
      RunProbe(JITSCOPE_STUB_PROBE_LEGACY, kOk, {"finalize", "active", "collector"});
  EXPECT_EQ(Lines({"finalize", "active=0", "collector=absent"}), run.out);
}

}  // namespace
