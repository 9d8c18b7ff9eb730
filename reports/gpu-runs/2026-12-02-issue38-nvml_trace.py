"""Polls NVML every ~10 ms: time, SM and memory clocks, power, throttle reasons, pstate.
Writes CSV to argv[1] until killed (SIGTERM) or argv[2] seconds pass."""
import signal, sys, time
import pynvml as n
n.nvmlInit()
h = n.nvmlDeviceGetHandleByIndex(0)
out = open(sys.argv[1], "w", buffering=1)
limit = float(sys.argv[2]) if len(sys.argv) > 2 else 1e9
stop = False
def handler(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, handler)
get_reasons = getattr(n, "nvmlDeviceGetCurrentClocksEventReasons", None) or n.nvmlDeviceGetCurrentClocksThrottleReasons
out.write("t,sm_mhz,mem_mhz,power_w,reasons_hex,pstate,temp_c,util\n")
t0 = time.time()
while not stop and time.time() - t0 < limit:
    t = time.time()
    sm = n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_SM)
    mem = n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_MEM)
    p = n.nvmlDeviceGetPowerUsage(h) / 1000.0
    r = get_reasons(h)
    ps = n.nvmlDeviceGetPerformanceState(h)
    tc = n.nvmlDeviceGetTemperature(h, n.NVML_TEMPERATURE_GPU)
    u = n.nvmlDeviceGetUtilizationRates(h).gpu
    out.write(f"{t:.3f},{sm},{mem},{p:.1f},{r:#x},{ps},{tc},{u}\n")
    time.sleep(0.01)
