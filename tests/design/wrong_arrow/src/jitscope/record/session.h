// A sampler header, for the checker's own test.
#pragma once
