"""Runs vllm-ascend's PD proxy (examples/disaggregated_prefill_v1/load_balance_proxy_server_example.py,
not shipped here) for benchmarks/side-by-side.sh, on Debian's packages.

    python3 run_peer_proxy.py PATH/load_balance_proxy_server_example.py [the proxy's own options]

It does what the proxy's own __main__ does for one worker (parse the options, set up logging, run
its FastAPI app in uvicorn), with one difference: Debian bookworm's FastAPI (0.92) predates the
`lifespan=` argument (FastAPI 0.93), so the app's lifespan (which builds the proxy's scheduler and
its HTTP clients) would never run and every request would answer 500 "worker runtime is not
initialized". On such a FastAPI the proxy's own lifespan function is handed to Starlette's router,
which has run lifespans since 0.20. On a newer FastAPI nothing is changed.

uvicorn's HTTP parser is httptools when it is installed (vLLM's own install pulls it in through
uvicorn[standard]) and h11, pure Python, otherwise: Debian bookworm packages no python3-httptools,
so on it the peer parses HTTP with h11, which costs it CPU per request (not per relayed chunk). The
launcher says which one runs.
"""

import importlib.util
import os
import sys


def main() -> None:
    if len(sys.argv) < 2 or not sys.argv[1].endswith(".py"):
        sys.exit("usage: run_peer_proxy.py PATH/load_balance_proxy_server_example.py [options]")
    path = os.path.abspath(sys.argv[1])
    sys.argv = [path] + sys.argv[2:]
    sys.path.insert(0, os.path.dirname(path))
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)

    import fastapi
    import uvicorn

    args = module.parse_args()
    if args.workers != 1:
        sys.exit("run_peer_proxy.py: one worker only (--workers 1), so that one process holds its CPU time")
    module.global_args = args
    module.setup_logging(args.log_level)
    major, minor = (int(x) for x in fastapi.__version__.split(".")[:2])
    if (major, minor) < (0, 93):
        module.app.router.lifespan_context = module.lifespan
    http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    print(f"run_peer_proxy: {name} on FastAPI {fastapi.__version__}, uvicorn {uvicorn.__version__}"
          f" ({http}, {loop}), pid {os.getpid()}", flush=True)
    uvicorn.run(module.app, host=args.host, port=args.port)


if __name__ == "__main__":
    main()
