// A report header that includes the sampler: the arrow DESIGN.md forbids.
#pragma once
#include "jitscope/record/session.h"
