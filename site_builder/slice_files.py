"""How a worker of ``parallel.share`` hands a large result back: in a file in
memory, not through the pool's pipe (``ResultFiles``)."""

from __future__ import annotations

import mmap
import os
import pickle
from typing import TYPE_CHECKING

from .files import write_all

if TYPE_CHECKING:
    import socket


class ResultFiles:
    """How a worker of ``parallel.share`` hands a large result back: pickled into a file in
    memory (``memfd``), whose descriptor it sends over a socket (``SCM_RIGHTS``)
    before the pool learns that its slice is done.

    Through the pool's pipe, this process's result thread read a result 64 KiB
    at a time, taking the GIL back after each read from the main thread, busy
    rendering its own slices, which gives it up every 5 ms: a 10,000-term
    markdown stage's worker spent 0.7-1.1 s blocked writing its results, its
    page stage's worker 0.2-1.0 s (docs/performance.md, "Load, validate and
    the two cores (issue 40, seventh round)"). A file is written at once; this
    process maps and unpickles it when the slice's turn comes."""

    def __init__(self, receiving: "socket.socket", sending: "socket.socket"):
        self.receiving, self.sending = receiving, sending
        self.arrived: dict[int, int] = {}  # slice -> the descriptor of its result's file

    @classmethod
    def open(cls) -> "ResultFiles | None":
        """A socket pair for the descriptors; None where this cannot work (no memfd, not Linux)."""
        import socket  # here: a build that shares no stage needs none of it

        if not hasattr(os, "memfd_create") or not hasattr(socket, "send_fds"):  # pragma: no cover - not Linux
            return None
        try:
            receiving, sending = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        except OSError:  # pragma: no cover - no descriptors to spare: results come through the pipe
            return None
        receiving.setblocking(False)
        return cls(receiving, sending)

    def send(self, index: int, data: bytes) -> None:
        """In a worker: put ``data`` (slice ``index``'s result, pickled) in a file and send it."""
        import socket

        descriptor = os.memfd_create("site_builder-slice", os.MFD_CLOEXEC)
        try:
            write_all(descriptor, data)
            socket.send_fds(self.sending, [index.to_bytes(8, "little")], [descriptor])
        finally:
            os.close(descriptor)

    def receive(self) -> None:
        """Take every descriptor sent so far (callers hold ``share``'s lock)."""
        import socket

        while True:
            try:
                message, descriptors, _flags, _address = socket.recv_fds(self.receiving, 8, 1)
            except BlockingIOError:
                return
            for descriptor in descriptors:
                # Close-on-exec, as every descriptor this process opens (nothing it runs
                # inherits one); set here: recv_fds drops its flags (MSG_CMSG_CLOEXEC) in 3.11.
                os.set_inheritable(descriptor, False)
                self.arrived[int.from_bytes(message, "little")] = descriptor

    def descriptor(self, index: int) -> int:
        """The file of slice ``index``'s result (sent before its future was done), now the caller's."""
        if index not in self.arrived:
            self.receive()
        descriptor = self.arrived.pop(index, None)
        if descriptor is None:  # the kernel dropped it: this process had no descriptor to spare
            raise OSError(f"the result of a worker's slice {index} was lost on its way back")
        return descriptor

    @staticmethod
    def load(descriptor: int) -> object:
        """The result in the file ``descriptor``, unpickled; the file is closed."""
        try:
            with mmap.mmap(descriptor, os.fstat(descriptor).st_size, access=mmap.ACCESS_READ) as mapped:
                with memoryview(mapped) as view:
                    return pickle.loads(view)
        finally:
            os.close(descriptor)

    def close(self) -> None:
        """Close the sockets and any result's file not taken (a failed stage)."""
        self.receive()
        for descriptor in self.arrived.values():
            os.close(descriptor)
        self.arrived.clear()
        self.receiving.close()
        self.sending.close()
