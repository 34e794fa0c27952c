/* What the planner knows of a CPU running the native executor: a grid
 * step per thread of blocks that fit in L2, any two axes transposed
 * inside a block. */
#include "cpu.h"

const Target cpu_target = {
	.name = "cpu", .id = 0, .budget = 256 << 10, .buffers = 1, .tiles = false, .threads = 0,
	.min_block = 16 << 10, .minor_align = 64, .wide64 = true, .pads = true, .pieces = true,
	.transposes = "any two axes",
};
