// A report header that includes the sampler: the arrow docs/architecture.md forbids.
#pragma once
#include "jitscope/record/session.h"
