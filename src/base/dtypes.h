/* The dtype table: one row per dtype of the language, in athene_dtype's
 * order (include/athene.h), read by dtype.c (names, sizes, classes), npy.c
 * (the .npy descr) and the Pallas emitter (the jnp spelling).
 *   DT(ENUM, name, bytes, class, npy kind, jnp)
 * class: DC_BOOL, DC_SINT (signed integers), DC_UINT, DC_FLOAT. The npy kind
 * is the descr's letter: bf16 is 'V' (ml_dtypes saves it as '<V2'). Adding
 * a dtype is a row here, its enum constant, and its conversions (dtype.c,
 * scalar.c). */
DT(ATHENE_BOOL, "bool", 1, DC_BOOL,  'b', "jnp.bool_")
DT(ATHENE_I8,   "i8",   1, DC_SINT,  'i', "jnp.int8")
DT(ATHENE_I16,  "i16",  2, DC_SINT,  'i', "jnp.int16")
DT(ATHENE_I32,  "i32",  4, DC_SINT,  'i', "jnp.int32")
DT(ATHENE_I64,  "i64",  8, DC_SINT,  'i', "jnp.int64")
DT(ATHENE_U8,   "u8",   1, DC_UINT,  'u', "jnp.uint8")
DT(ATHENE_F16,  "f16",  2, DC_FLOAT, 'f', "jnp.float16")
DT(ATHENE_BF16, "bf16", 2, DC_FLOAT, 'V', "jnp.bfloat16")
DT(ATHENE_F32,  "f32",  4, DC_FLOAT, 'f', "jnp.float32")
DT(ATHENE_F64,  "f64",  8, DC_FLOAT, 'f', "jnp.float64")
