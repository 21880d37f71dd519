// A file of the tool side, for the checker's own test.
#pragma once
