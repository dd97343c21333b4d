// A runtime-style Broadcast operator over bcast's C ABI.
//
// An inference runtime knows its shapes when it compiles a graph: BroadcastOp makes the
// plan there, once, and every inference runs it (no planning, no allocation per run). The
// plan is immutable, so one operator may run on many threads at once.
//
// Build and run: `make` in this folder (see the Makefile), or
//   g++ -std=c++17 -I ../../bindings/c/include broadcast_op.cpp
//       ../../target/release/libbcast_c.a -lpthread -ldl -lm
#include <bcast.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace rt {

// Every bcast status but BCAST_OK becomes an exception carrying bcast's message.
inline void check(int status) {
    if (status != BCAST_OK)
        throw std::runtime_error(std::string("bcast: ") + bcast_last_error_message());
}

class BroadcastOp {
  public:
    // "Compile time": the rule is checked and the plan made here, or this throws.
    BroadcastOp(bcast_mode mode, const std::vector<size_t>& data_shape,
                const std::vector<size_t>& target_shape, const std::vector<int64_t>& mode_args,
                size_t elem_size, size_t threads = 0)
        : elem_size_(elem_size), threads_(threads) {
        check(bcast_plan_create(mode, data_shape.data(), data_shape.size(), target_shape.data(),
                                target_shape.size(), mode_args.data(), mode_args.size(), &plan_));
        size_t shape[BCAST_MAX_RANK], rank = 0;
        check(bcast_plan_output_shape(plan_, shape, BCAST_MAX_RANK, &rank));
        output_shape_.assign(shape, shape + rank);
        check(bcast_plan_output_len(plan_, &output_len_));
    }
    ~BroadcastOp() { bcast_plan_free(plan_); }
    BroadcastOp(const BroadcastOp&) = delete;
    BroadcastOp& operator=(const BroadcastOp&) = delete;
    BroadcastOp(BroadcastOp&& other) noexcept
        : plan_(std::exchange(other.plan_, nullptr)), output_shape_(std::move(other.output_shape_)),
          output_len_(other.output_len_), elem_size_(other.elem_size_), threads_(other.threads_) {}

    const std::vector<size_t>& output_shape() const { return output_shape_; }
    size_t output_len() const { return output_len_; }

    // "Run time": src has the data shape, dst the output shape, both row-major.
    void run(const void* src, void* dst) const {
        check(bcast_plan_run(plan_, src, dst, elem_size_, threads_));
    }

  private:
    bcast_plan* plan_ = nullptr;
    std::vector<size_t> output_shape_;
    size_t output_len_ = 0;
    size_t elem_size_;
    size_t threads_;
};

}  // namespace rt

int main() {
    // A [3] bias placed on the channel axis of NCHW [2,3,4,4] (OpenVINO explicit mode).
    rt::BroadcastOp bias(BCAST_MODE_EXPLICIT, {3}, {2, 3, 4, 4}, {1}, sizeof(float));
    // ONNX Expand of an int64 [3,1] to [2,1,6] (bidirectional), on the calling thread only.
    rt::BroadcastOp expand(BCAST_MODE_BIDIRECTIONAL, {3, 1}, {2, 1, 6}, {}, sizeof(int64_t), 1);

    std::vector<float> nchw(bias.output_len());
    std::vector<int64_t> expanded(expand.output_len());
    for (int step = 0; step < 1000; ++step) {  // many inferences, one plan each
        const float b[3] = {float(step), -1.0f, 0.5f};
        bias.run(b, nchw.data());
        const int64_t col[3] = {step, INT64_MIN, INT64_MAX};
        expand.run(col, expanded.data());
        // element [n, c, h, w] of NCHW is b[c]; element [i, j, k] of the expansion is col[j]
        for (size_t i = 0; i < nchw.size(); ++i)
            if (nchw[i] != b[(i / 16) % 3]) return std::printf("bias: wrong at %zu\n", i), 1;
        for (size_t i = 0; i < expanded.size(); ++i)
            if (expanded[i] != col[(i / 6) % 3]) return std::printf("expand: wrong at %zu\n", i), 1;
    }
    std::printf("bias: output [%zu,%zu,%zu,%zu], nchw[1,2,3,3] = %g\n", bias.output_shape()[0],
                bias.output_shape()[1], bias.output_shape()[2], bias.output_shape()[3],
                double(nchw[1 * 48 + 2 * 16 + 15]));
    std::printf("expand: output [%zu,%zu,%zu]\n", expand.output_shape()[0],
                expand.output_shape()[1], expand.output_shape()[2]);

    // A graph whose shapes break the rule fails at compile time, with the rule's message.
    try {
        rt::BroadcastOp bad(BCAST_MODE_EXPLICIT, {3}, {1, 4, 2, 2}, {1}, sizeof(float));
        return std::printf("expected an error\n"), 1;
    } catch (const std::runtime_error& e) {
        std::printf("compile error: %s\n", e.what());
    }
    std::printf("BroadcastOp: ok\n");
    return 0;
}
