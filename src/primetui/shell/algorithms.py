"""SSH algorithm preferences shared by the client (``primetui.shell``) and the local platform's server.

Only the order of what is offered changes, never what is accepted: AES-GCM first, because
asyncssh runs it inside ``cryptography``'s C code in one call per packet, while its
chacha20-poly1305 sets up several cipher contexts and a Poly1305 per packet from Python (about
3x the CPU per byte for 32 KiB packets). Every other asyncssh default stays behind it, so a server
without AES-GCM still negotiates as before. Compression is off: shell output over loopback or a
LAN gains nothing from zlib and pays for it in CPU on both ends.
"""

from __future__ import annotations

ENCRYPTION_ALGS = "^aes128-gcm@openssh.com,aes256-gcm@openssh.com"
"""asyncssh's "prepend to the defaults" form: these two first, then the usual list."""

COMPRESSION_ALGS = ["none"]

SHELL_MAX_PKTSIZE = 128 * 1024
"""Largest SSH data packet the client accepts on a shell channel (asyncssh's default is 32 KiB).
The server sends a flood in packets of up to this, so fewer packets (each a decrypt, a MAC check,
a parse and a wake-up) carry the same bytes."""

SHELL_WINDOW = 512 * 1024
"""The shell channel's receive window (asyncssh's default is 2 MiB). It is also the client's
read-ahead, so it bounds how far an echo can lag behind a flood once the server outpaces the
pane: at 512 KiB a key typed during `seq` echoes in tens of ms instead of over 100 ms, and the
pane still takes 10+ MB/s (docs/performance.md, "Terminal pane over SSH"). Over a link with
100 ms round trips it still carries about 5 MB/s of shell output; SFTP has its own channels."""
