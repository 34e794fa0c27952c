/* What the planner knows of a TPU core running Pallas/Mosaic kernels:
 * double-buffered blocks in scoped VMEM, (8·packing, 128) tiles, the minor
 * two axes transposed inside a block, no 64-bit vectors. The GPU lowering
 * (pallas-gpu) takes the same plan. */
#include "pallas.h"

const Target tpu_target = {
	.name = "tpu", .id = 1, .budget = 16 << 20, /* scoped VMEM, both buffers of every block */
	.buffers = 2, .tiles = true, .threads = 1, .min_block = 0, .minor_align = 64, .wide64 = false, .pads = true,
	.pieces = false, .transposes = "the minor two axes",
};

/* The TPU generations the emitted module may name (--tpu, athene_emit's chip). */
const char *const tpu_chips[] = {"v5e", "v6e", "v4", NULL};
