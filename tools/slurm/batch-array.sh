#!/bin/bash
# One shard of characters.jsonl per task of a Slurm job array, e.g. sbatch --array=0-3 batch-array.sh
# from the folder holding characters.jsonl (rigfit on the PATH, RIGFIT_DATA set; sbatch passes the
# environment on). Submitting it again after a task was cancelled, failed or its node died skips
# the characters already made (--resume: those recorded in out/ whose files are still whole).
#SBATCH --job-name=rigfit-batch
#SBATCH --cpus-per-task=1
set -euo pipefail
rigfit batch characters.jsonl --out-dir out --jobs "$SLURM_CPUS_PER_TASK" --resume \
  --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" --summary "out/summary.$SLURM_ARRAY_TASK_ID.json"
