export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib; OUT=$OUT timeout 212 scripts/run-porep-scale.sh v16 208 --sector-size 32GiB --proofs 1 --concurrency 1 --vram-limit 16GiB --max-batch-size 4
