/* The C API from C: load a kernel, launch it on the host backend, check the
 * result and the error paths. */
#include "tile/tile.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char *kSource =
    "kernel scale<BLOCK: int = 64>(x: ptr<f32>, y: ptr<f32>, a: f32, n: i32) {\n"
    "  let offs = program_id(0) * BLOCK + arange(0, BLOCK);\n"
    "  let m = offs < n;\n"
    "  store(y + offs, load(x + offs, mask=m, other=0) * a, mask=m);\n"
    "}\n";

#define CHECK(cond)                                                                          \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      printf("FAILED: %s (line %d) %s\n", #cond, __LINE__, error);                          \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

int main(void) {
  char error[512] = "";
  tile_runtime *rt = NULL;
  CHECK(tile_runtime_create("host", NULL, &rt, error, sizeof error) == 0);
  CHECK(strcmp(tile_runtime_target(rt), "host") == 0);
  const char *defines[] = {"BLOCK=32"};
  tile_kernel *k = NULL;
  CHECK(tile_kernel_load(rt, kSource, "scale.tile", NULL, defines, 1, &k, error, sizeof error) == 0);
  float x[100], y[100];
  for (int i = 0; i < 100; ++i) {
    x[i] = 0.5f * (float)i - 7.25f;
    y[i] = -1.0f;
  }
  uint32_t grid[3] = {4, 1, 1};
  tile_arg args[4] = {{TILE_ARG_POINTER, x, 0, 0}, {TILE_ARG_POINTER, y, 0, 0},
                      {TILE_ARG_FLOAT, NULL, 0, 3.0}, {TILE_ARG_INT, NULL, 97, 0}};
  CHECK(tile_launch(rt, k, grid, args, 4, NULL, error, sizeof error) == 0);
  for (int i = 0; i < 97; ++i)
    CHECK(y[i] == 3.0f * x[i]);
  CHECK(y[97] == -1.0f);

  CHECK(tile_launch(rt, k, grid, args, 3, NULL, error, sizeof error) == -1);
  CHECK(strcmp(error, "kernel 'scale' takes 4 arguments, got 3") == 0);
  /* Kinds outside the enum, as a C caller may store them: each an error, and
   * nothing runs. In C++ they must be read as integers (UBSan checks that the
   * C API never loads them as a tile_arg_kind). */
  const int badKinds[] = {3, 9, -1, 255, INT_MAX, INT_MIN};
  for (size_t b = 0; b < sizeof badKinds / sizeof badKinds[0]; ++b) {
    tile_arg bad = {(tile_arg_kind)badKinds[b], NULL, 0, 0};
    tile_arg badArgs[4] = {args[0], args[1], args[2], bad};
    badArgs[b % 3] = bad;
    char expected[128];
    snprintf(expected, sizeof expected, "tile_launch: argument %d has an unknown kind (%d)",
             (int)(b % 3), badKinds[b]);
    for (int i = 0; i < 100; ++i)
      y[i] = -1.0f;
    CHECK(tile_launch(rt, k, grid, badArgs, 4, NULL, error, sizeof error) == -1);
    CHECK(strcmp(error, expected) == 0);
    CHECK(y[0] == -1.0f);
  }
  char tiny[8];
  CHECK(tile_kernel_load(rt, "kernel", "bad.tile", NULL, NULL, 0, &k, tiny, sizeof tiny) == -1);
  CHECK(strlen(tiny) == 7);
  CHECK(tile_kernel_load(rt, kSource, "scale.tile", NULL, defines, 0, NULL, error, sizeof error) == -1);
  tile_runtime_destroy(rt);
  tile_runtime *none = NULL;
  CHECK(tile_runtime_create("tpu", NULL, &none, error, sizeof error) == -1);
  CHECK(none == NULL);
  printf("C API: all checks passed\n");
  return 0;
}
