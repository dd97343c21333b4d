#!/bin/bash
# 2026-11-29, fifth window (2-vCPU Intel Xeon model 207). old = main at c73fbfd (before the
# plain rows, line-aligned stores and chosen hints), new = the commit of this folder; both
# `cargo build --release -p bcast-cli`, copied to /tmp/exp/bcast_{old,new}.
python3 ab_bins.py 1 5 > ab_rows_1t.txt        # whole model group, 5 alternating rounds
python3 ab_bins.py 2 5 > ab_rows_2t.txt
python3 ab_bins.py 1 11 --case llama_decode_rotary_cos_f16 --case gpt2_decode_causal_select_f32 \
  --case llama_decode_residual_f16 --case llama_decode_rmsnorm_weight_f16 \
  --case mobilenetv2_c160_residual_f16 --case bert_s128_softmax_sub_f32 > ab_rows_tiny_1t.txt
# The hand-written loop of the softmax subtract (gcc -O3 -march=native
# -mprefer-vector-width=512 rowref.c): rowref sub 1536 128
cd ../../.. && rm -f target/release/model_bench_c && python3 benches/compare_models.py \
  --threads 1,2 --rounds 3 --budget-ms 100 --raw $OLDPWD/compare_models.raw.jsonl --markdown \
  > $OLDPWD/compare_models.md 2> $OLDPWD/compare_models.err
