/*===- tile.h - C API over tile::Runtime for FFI users ---------------------===*
 *
 * Every function that can fail returns 0 on success and -1 on failure, with
 * the message written (NUL-terminated, truncated to fit) into `error`.
 * Nothing aborts on bad input.
 *
 *===----------------------------------------------------------------------===*/
#ifndef TILE_TILE_C_H
#define TILE_TILE_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tile_runtime tile_runtime;
typedef struct tile_kernel tile_kernel;

typedef enum { TILE_ARG_POINTER = 0, TILE_ARG_INT = 1, TILE_ARG_FLOAT = 2 } tile_arg_kind;

typedef struct {
  tile_arg_kind kind; /* any other value: tile_launch fails with "unknown kind" */
  const void *ptr;
  int64_t i;
  double f;
} tile_arg;

/* backend: "auto" (CUDA, then HIP, then the host CPU), "cuda", "hip" or "host";
 * cache_dir: NULL for the default disk cache location. */
int tile_runtime_create(const char *backend, const char *cache_dir, tile_runtime **out,
                        char *error, size_t error_size);
void tile_runtime_destroy(tile_runtime *runtime);
/* "host", "sm_90a", "gfx942", ...; valid while the runtime lives. */
const char *tile_runtime_target(const tile_runtime *runtime);

/* defines: "NAME=VALUE" strings, `num_defines` of them; kernel: NULL for the
 * only kernel of the source. The kernel belongs to the runtime: it stays valid
 * until tile_runtime_destroy, which frees it (never free it yourself). */
int tile_kernel_load(tile_runtime *runtime, const char *source, const char *file_name,
                     const char *kernel, const char *const *defines, size_t num_defines,
                     tile_kernel **out, char *error, size_t error_size);

int tile_launch(tile_runtime *runtime, tile_kernel *kernel, const uint32_t grid[3],
                const tile_arg *args, size_t num_args, void *stream, char *error,
                size_t error_size);
int tile_synchronize(tile_runtime *runtime, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* TILE_TILE_C_H */
