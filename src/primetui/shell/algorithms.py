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

# The shell channel's receive window (how far output may run ahead of the pane) is not a constant:
# primetui.shell.flow sizes it to what the pane consumes.
