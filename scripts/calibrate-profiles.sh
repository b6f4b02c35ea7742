#!/usr/bin/env bash
# Fits the shipped hardware profiles to the published measurements in ../shared/data, in place.
# Every fitted number's source in hw_profiles/*.yaml names the command that fitted it; this
# script is that list of commands. Run from the repository root after building.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${OVERLAPSIM:-build/overlapsim}"
data="${OVERLAPSIM_DATA:-calibrate/published}"
fit() { "$bin" calibrate "$@" | grep -v '^    worst' ; }

# H800: DeepGEMM, DeepEP and FlashMLA figures were all measured on it.
fit --base h800-sxm --data "$data/deepgemm.csv" --data "$data/deepep.csv" --data "$data/flashmla.csv" \
    --out hw_profiles/h800-sxm.yaml
# H100 and H200: the same GH100 die and kernels, so H800's kernel numbers; their own SMs, HBM
# and links stay. H100 also has its own BF16 matmul figure (cuBLAS, gpus.csv MAMF).
fit --base h100-sxm --copy-from h800-sxm --data "$data/gpus.csv" --only kernels.gemm.efficiency.bf16 \
    --out hw_profiles/h100-sxm.yaml
fit --base h200-sxm --copy-from h800-sxm --out hw_profiles/h200-sxm.yaml
# H200 measured by our own microbenchmarks (calibrate/data, run-on-gpu.sh on 2026-12-04): what
# these kernels measure of the GPU itself (HBM, L2, event and graph-node host costs, the
# shortest kernel). Not the GEMM numbers (cuBLASLt is not DeepGEMM) nor the eager launch cost
# (measured on a virtual machine's host).
fit --base h200-sxm --bench calibrate/data/nvidia-h200-20261204T150532Z \
    --only hbm.achievable_gbps hbm.saturation_sms l2.achievable_gbps host.event_us \
    host.launch_graph_us kernels.memory.kernel_min_us host.graph_kernel_saving_us \
    --out hw_profiles/h200-sxm.yaml
# B200: BF16/FP8 matmul figures (gpus.csv MAMF) and FlashMLA's B200 figures.
fit --base b200 --data "$data/gpus.csv" --data "$data/flashmla.csv" --out hw_profiles/b200.yaml
# H20: a cut-down GH100 (78 SMs, a reduced tensor rate) running the same DeepGEMM, DeepEP and
# FlashMLA kernels as H800, so H800's kernel numbers; its own SMs, HBM and links stay. No H20
# kernel measurement is published in ../shared/data.
fit --base h20 --copy-from h800-sxm --out hw_profiles/h20.yaml
# GB200: the same GB100 die and kernels as B200, so B200's kernel numbers; then GB200's own
# BF16/FP8 matmul figures (gpus.csv MAMF) for the GEMM efficiencies.
fit --base gb200 --copy-from b200 --data "$data/gpus.csv" --out hw_profiles/gb200.yaml
# MI355X: seed 2's MI355X timeline (calibrate/published/seed2-mi355x.csv: wqkv_a, q_a and q_b, as
# read in SGLang's serial eager prefill with the May-2026 ROCm kernels, fit the FP8 GEMM
# efficiency, per-tile overhead and shortest kernel; the side branches and the multi-stream block
# are held back and only predicted), then its BF16 matmul figure (which reads the per-tile
# overhead). Run twice: the second run reproduces the first.
fit --base mi355x --data "$data/seed2-mi355x.csv" --data "$data/gpus.csv" --out hw_profiles/mi355x.yaml
