"""A competing GPU load for the interference test (tests/gpu.rs): a PyTorch bf16
matrix-multiply loop on one GPU, the kind of job that shares a course machine.

    python3 benches/competing_load.py [--device 0] [--seconds 120]

Prints "ready" once the first product has run (so the GPU is busy), then multiplies 8192 x
8192 bf16 matrices back to back until the time is up or it is killed."""
import argparse
import sys
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--device", type=int, default=0)
p.add_argument("--seconds", type=float, default=120.0)
a = p.parse_args()
dev = torch.device("cuda", a.device)
x = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
y = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
z = x @ y
torch.cuda.synchronize(dev)
print("ready", flush=True)
end = time.time() + a.seconds
while time.time() < end:
    for _ in range(20):
        z = x @ y
    torch.cuda.synchronize(dev)
sys.exit(0)
