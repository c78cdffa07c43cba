# The rlm kernel: a persistent Python session that codewhale drives over two
# pipes with length-prefixed JSON frames (docs/RLM.md). It binds the opened
# text as `content`, runs `eval` blocks, and asks codewhale to run tool-less
# child model queries for it (sub_query and friends). The boundary is the OS
# sandbox codewhale starts it in (reads only the system, the workspace and
# Python's own directories; writes only the scratch directory; no network)
# and the limits below (no new processes); the audit hook is advisory.
import ast
import builtins
import contextlib
import io
import json
import os
import resource
import signal
import struct
import sys
import traceback

REQ = os.fdopen(int(os.environ.get("RLM_REQ_FD", "3")), "rb", buffering=0)
RESP = os.fdopen(int(os.environ.get("RLM_RESP_FD", "4")), "wb", buffering=0)
SCRATCH = os.path.realpath(os.environ["RLM_SCRATCH"])
MAX_FRAME = 64 << 20


def _limit(kind, value):
    try:
        soft, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(kind, (value, value))
    except (ValueError, OSError):
        pass


_limit(resource.RLIMIT_AS, int(os.environ.get("RLM_MEMORY_BYTES", str(4 << 30))))
_limit(resource.RLIMIT_CPU, int(os.environ.get("RLM_CPU_SECONDS", "3600")))
_limit(resource.RLIMIT_NOFILE, int(os.environ.get("RLM_OPEN_FILES", "256")))
_limit(resource.RLIMIT_FSIZE, int(os.environ.get("RLM_FILE_BYTES", str(1 << 30))))
# No new processes or threads: the kernel needs none, and RLIMIT_NPROC is
# what the kernel (the OS's) enforces whatever the code does to the hook.
_limit(resource.RLIMIT_NPROC, int(os.environ.get("RLM_PROCESSES", "0")))


def _refuse_processes(hexprog):
    # The OS's kernel does not apply RLIMIT_NPROC to root, so codewhale
    # hands over a seccomp filter (internal/sandbox NoProcessesFilter) that
    # refuses fork, clone and exec for anyone, root included; once
    # installed it cannot be removed. Failing to install it is fatal: the
    # kernel never runs code without it.
    import ctypes
    prog = bytes.fromhex(hexprog)

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    fprog = SockFprog(len(prog) // 8, prog)
    if libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


if os.environ.get("RLM_PROCESS_FILTER"):
    try:
        _refuse_processes(os.environ["RLM_PROCESS_FILTER"])
    except Exception as e:  # noqa: BLE001 - any failure stops the kernel
        sys.stderr.write("rlm kernel: cannot refuse new processes (%s); not starting\n" % e)
        sys.exit(70)
    del os.environ["RLM_PROCESS_FILTER"]
    # ctypes was needed for this alone: the advisory hook below refuses a
    # fresh import of it, so it does not stay loaded.
    for _name in [m for m in sys.modules if m in ("ctypes", "_ctypes") or m.startswith("ctypes.")]:
        del sys.modules[_name]


def _read_exactly(n):
    buf = bytearray()
    while len(buf) < n:
        chunk = REQ.read(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return bytes(buf)


def recv():
    # SIGINT is held while a frame is read, so an interrupt never splits one.
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        (n,) = struct.unpack(">I", _read_exactly(4))
        if n > MAX_FRAME:
            raise EOFError
        return json.loads(_read_exactly(n))
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def send(obj):
    data = json.dumps(obj, ensure_ascii=False, default=repr).encode("utf-8", "surrogatepass")
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        RESP.write(struct.pack(">I", len(data)) + data)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


# ---- advisory in-process checks ------------------------------------------
# They turn the usual mistakes (subprocess, sockets, writing outside the
# scratch directory) into clear errors before the OS sandbox refuses them
# less clearly. They are no boundary: code in the same interpreter can
# switch them off (sub_query.__globals__['_armed'] = False), and nothing
# codewhale promises depends on them (docs/RLM.md).

def _inside_scratch(path):
    try:
        p = os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError):
        return False
    return p == SCRATCH or p.startswith(SCRATCH + os.sep)


_PROCESS_EVENTS = {"os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.startfile",
                   "subprocess.Popen", "pty.spawn", "os.kill", "os.killpg"}
_NETWORK_EVENTS = {"socket.__new__", "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg",
                   "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr", "socket.getnameinfo",
                   "urllib.Request", "http.client.connect", "ftplib.connect", "smtplib.connect"}
_PATH_EVENTS = {"os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.symlink", "os.link",
                "os.truncate", "os.utime", "shutil.rmtree", "shutil.copyfile", "shutil.move", "os.chdir"}
_BLOCKED_MODULES = {"ctypes", "_ctypes", "cffi", "_posixsubprocess", "multiprocessing"}
_armed = False


def _audit(event, args):
    if not _armed:
        return
    if event in _PROCESS_EVENTS:
        raise PermissionError("rlm sandbox: starting processes is not allowed (%s)" % event)
    if event in _NETWORK_EVENTS:
        raise PermissionError("rlm sandbox: network access is not allowed (%s); ask codewhale through sub_query, "
                              "or fetch pages with the Web tool" % event)
    if event == "import" and args and str(args[0]).split(".")[0] in _BLOCKED_MODULES:
        raise PermissionError("rlm sandbox: module %s is not available" % args[0])
    if event == "open" and args:
        path, mode, flags = (list(args) + [None, None, None])[:3]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
            (isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND))
        if writing and isinstance(path, (str, bytes, os.PathLike)) and not _inside_scratch(path):
            raise PermissionError("rlm sandbox: writing %s is not allowed; write only under %s" % (path, SCRATCH))
    if event in _PATH_EVENTS:
        for a in args:
            if isinstance(a, (str, bytes, os.PathLike)) and not _inside_scratch(a):
                raise PermissionError("rlm sandbox: %s on %s is not allowed outside %s" % (event, a, SCRATCH))


sys.addaudithook(_audit)


# ---- helpers the evaluated code can call --------------------------------

_next_id = [0]
_final = {"set": False, "value": None}


def _ask(op, **fields):
    _next_id[0] += 1
    rid = _next_id[0]
    send(dict(op=op, id=rid, **fields))
    while True:
        msg = recv()
        if msg.get("op") == "reply" and msg.get("for") == rid:
            if msg.get("error"):
                raise RuntimeError(msg["error"])
            return msg.get("result")
        # A reply to a query an interrupt abandoned: drop it.


def _text(x):
    return x if isinstance(x, str) else ("" if x is None else str(x))


def sub_query(prompt, text=None):
    """One tool-less child model query; returns its answer text."""
    return _ask("sub_query", prompt=_text(prompt), text=_text(text))


def sub_query_batch(prompt, slices, dependency_mode="independent"):
    """1-16 concurrent one-shot children, one per slice; answers in slot order."""
    return _ask("sub_query_batch", prompt=_text(prompt), slices=[_text(s) for s in slices],
                dependency_mode=_text(dependency_mode))


def sub_query_map(prompt, items):
    """sub_query_batch over any number of items, 16 at a time."""
    return _ask("sub_query_map", prompt=_text(prompt), slices=[_text(s) for s in items])


def sub_query_sequence(prompt, slices):
    """Sequential children: each sees the previous answer; returns every answer."""
    return _ask("sub_query_sequence", prompt=_text(prompt), slices=[_text(s) for s in slices])


def sub_rlm(prompt, text=None):
    """A child rlm session over text (depth-capped); returns its FINAL value as text."""
    return _ask("sub_rlm", prompt=_text(prompt), text=_text(text))


def FINAL(value):
    """Mark value as this eval's answer; it comes back as a handle."""
    _final["set"], _final["value"] = True, value
    return value


def finalize(*args, **kwargs):
    """FINAL of several values at once (a tuple, or a dict of keyword values)."""
    if kwargs and not args:
        return FINAL(dict(kwargs))
    if len(args) == 1 and not kwargs:
        return FINAL(args[0])
    return FINAL({"args": list(args), **kwargs} if kwargs else list(args))


NS = {"__name__": "__rlm__", "__builtins__": builtins, "content": "", "sub_query": sub_query,
      "sub_query_batch": sub_query_batch, "sub_query_map": sub_query_map, "sub_query_sequence": sub_query_sequence,
      "sub_rlm": sub_rlm, "FINAL": FINAL, "finalize": finalize, "SCRATCH": SCRATCH}


def _bind(msg):
    if "path" in msg:
        with open(msg["path"], "r", encoding="utf-8", errors="replace") as f:
            NS["content"] = f.read()
    else:
        NS["content"] = msg.get("text", "")
    return {"op": "bound", "id": msg.get("id"), "length": len(NS["content"])}


def _is_final_call(node):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("FINAL", "finalize")


def _run(code):
    tree = ast.parse(code, "<rlm>", "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not _is_final_call(tree.body[-1].value):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<rlm>", "exec"), NS)
    if last is not None:
        value = eval(compile(last, "<rlm>", "eval"), NS)
        if value is not None:
            print(repr(value))


def _eval(msg):
    out, err = io.StringIO(), io.StringIO()
    _final["set"], _final["value"] = False, None
    status, error = "ok", None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            _run(msg["code"])
        except KeyboardInterrupt:
            status, error = "interrupted", {"type": "KeyboardInterrupt", "message": "interrupted",
                                            "traceback": ""}
        except SystemExit as e:
            status, error = "error", {"type": "SystemExit", "message": "exit() ends nothing here (code %r)" % (e.code,),
                                      "traceback": ""}
        except BaseException as e:  # noqa: BLE001 - every error goes back to the model
            tb = traceback.format_exception(type(e), e, e.__traceback__)
            status, error = "error", {"type": type(e).__name__, "message": str(e), "traceback": "".join(tb[-12:])}
    res = {"op": "result", "id": msg.get("id"), "status": status, "stdout": out.getvalue(), "stderr": err.getvalue(),
           "error": error}
    if _final["set"]:
        v = _final["value"]
        try:
            res["final"] = {"type": type(v).__name__, "text": v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=repr)}
        except (TypeError, ValueError):
            res["final"] = {"type": type(v).__name__, "text": repr(v)}
    return res


def main():
    global _armed
    os.chdir(SCRATCH)
    _armed = True
    send({"op": "ready", "python": sys.version.split()[0], "pid": os.getpid()})
    while True:
        try:
            msg = recv()
        except EOFError:
            return
        except KeyboardInterrupt:
            continue
        op = msg.get("op")
        try:
            if op == "bind":
                send(_bind(msg))
            elif op == "eval":
                send(_eval(msg))
            elif op == "close":
                send({"op": "closed", "id": msg.get("id")})
                return
            elif op == "reply":
                continue  # late reply to an abandoned query
            else:
                send({"op": "error", "id": msg.get("id"), "error": "unknown op %r" % op})
        except KeyboardInterrupt:
            send({"op": "result", "id": msg.get("id"), "status": "interrupted", "stdout": "", "stderr": "",
                  "error": {"type": "KeyboardInterrupt", "message": "interrupted", "traceback": ""}})


if __name__ == "__main__":
    main()
