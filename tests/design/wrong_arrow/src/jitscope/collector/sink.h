// An in-process file that includes the tool side: what the in-process boundary forbids.
#pragma once
#include "jitscope/session/samples_file.h"
