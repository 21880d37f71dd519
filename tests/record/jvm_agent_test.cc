// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// What jcmd's output of `JVMTI.agent_load` says (record/jvm_agent.h), for each way it ends: the
// lines are those OpenJDK 17's jcmd prints (JvmtiExport::load_agent_library; the attach
// exception of a JVM that does not answer).
#include "jitscope/record/jvm_agent.h"

#include <gtest/gtest.h>

#include "jitscope/record/jcmd.h"

namespace jitscope::record {
namespace {

// What JAVA_TOOL_OPTIONS gives the JVMs a recorded command starts: HotSpot splits it at blanks.
TEST(JvmAgentTest, ToolOptionsNameTheAgentAndTheSession) {
  auto options = JvmAgentToolOptions("/opt/lib/libjvmti_opagent.so", "/home/u/jitscope.data");
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(*options, "-agentpath:/opt/lib/libjvmti_opagent.so=dir=/home/u/jitscope.data");
  // A session directory with a blank is left to JITSCOPE_OUTPUT_DIR, which record sets.
  options = JvmAgentToolOptions("/opt/lib/libjvmti_opagent.so", "/home/u/my data");
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(*options, "-agentpath:/opt/lib/libjvmti_opagent.so");
  options = JvmAgentToolOptions("/opt/my lib/libjvmti_opagent.so", "/s");
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.status().message(),
            "/opt/my lib/libjvmti_opagent.so: a path with a blank cannot be passed through "
            "JAVA_TOOL_OPTIONS");
}

TEST(JvmAgentTest, ReturnCodeZeroIsLoaded) {
  EXPECT_TRUE(AgentLoadResult("1234:\nreturn code: 0\n", 0).ok());
}

TEST(JvmAgentTest, FailuresSayWhy) {
  struct Case {
    const char* output;
    int exit_status;
    const char* message;
  };
  const Case cases[] = {
      // The agent's convention: a positive code is the errno of opening its outputs.
      {"1234:\nreturn code: 13\n", 0, "the agent could not open its outputs: Permission denied"},
      {"1234:\nreturn code: 16\n", 0,
       "the JVM was started with the agent (-agentpath), which reports where the JVM told it to "
       "(its dir= option or JITSCOPE_OUTPUT_DIR); left as it is"},
      {"1234:\nreturn code: -1\n", 0,
       "the agent failed (return code -1; the JVM's standard error says why)"},
      {"1234:\nAgent_OnAttach is not available in /opt/lib/libjvmti_opagent.so\n", 0,
       "the JVM did not load it: Agent_OnAttach is not available in "
       "/opt/lib/libjvmti_opagent.so"},
      {"1234:\n/x/lib.so was not loaded.\n/x/lib.so: cannot open shared object file: No such "
       "file or directory\n",
       0,
       "the JVM did not load it: /x/lib.so was not loaded.; /x/lib.so: cannot open shared object "
       "file: No such file or directory"},
      {"1234:\ncom.sun.tools.attach.AttachNotSupportedException: Unable to open socket file\n"
       "\tat jdk.attach/sun.tools.attach.VirtualMachineImpl.<init>(VirtualMachineImpl.java:104)\n",
       1,
       "jcmd failed (exit status 1): com.sun.tools.attach.AttachNotSupportedException: Unable to "
       "open socket file"},
      {"", 0, "the JVM did not load it: no output"},
      {"1234:\nreturn code: x\n", 0, "the JVM did not load it: return code: x"},
      // "return code: 0" inside another line is not the VM's verdict.
      {"1234:\nthe agent said return code: 0\n", 0,
       "the JVM did not load it: the agent said return code: 0"},
  };
  for (const Case& c : cases) {
    const base::Status status = AgentLoadResult(c.output, c.exit_status);
    ASSERT_FALSE(status.ok()) << c.output;
    EXPECT_EQ(status.message(), c.message) << c.output;
  }
}

TEST(JvmAgentTest, JcmdMessageKeepsWhatSaysSomething) {
  EXPECT_EQ(JcmdMessage("77:\r\n  \nfirst  \n\tat frame\nsecond"), "first; second");
  // A first line that is not "PID:" stays.
  EXPECT_EQ(JcmdMessage("Error: no such command\n"), "Error: no such command");
}

TEST(JvmAgentTest, TheCommandTellsTheUserWhatRan) {
  EXPECT_EQ(JvmAgentCommand(42, "/opt/lib/libjvmti_opagent.so", "dir=/s"),
            "jcmd 42 JVMTI.agent_load \"/opt/lib/libjvmti_opagent.so\" \"dir=/s\"");
}

}  // namespace
}  // namespace jitscope::record
