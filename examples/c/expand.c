#include <bcast.h>
#include <stdio.h>

int main(void) {
    /* ONNX Expand: a [3,1] column with shape [2,1,6] gives [2,3,6]. */
    const size_t data_shape[] = {3, 1}, target_shape[] = {2, 1, 6};
    bcast_plan *plan;
    if (bcast_plan_create(BCAST_MODE_BIDIRECTIONAL, data_shape, 2, target_shape, 3,
                          NULL, 0, &plan) != BCAST_OK) {
        fprintf(stderr, "bcast: %s\n", bcast_last_error_message());
        return 1;
    }
    size_t shape[BCAST_MAX_RANK], rank, len;
    bcast_plan_output_shape(plan, shape, BCAST_MAX_RANK, &rank); /* 3: [2,3,6] */
    bcast_plan_output_len(plan, &len);                           /* 36 */
    float col[3] = {1, 2, 3}, out[36];
    for (int step = 0; step < 1000; step++) /* plan once, run many times */
        if (bcast_plan_run(plan, col, out, sizeof(float), 0) != BCAST_OK) return 1;
    printf("[%zu,%zu,%zu], %zu elements, out[0,1,5] = %g\n", shape[0], shape[1], shape[2],
           len, out[11]);
    bcast_plan_free(plan);
    return 0;
}
