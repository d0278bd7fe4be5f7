"""A throwaway PostgreSQL server for the tests, started from the machine's
PostgreSQL binaries on loopback in a temporary directory (as the ``postgres``
user when the tests run as root). Set MEMDESK_TEST_PG_URL to use an existing
server instead."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass


def pg_bindir() -> str | None:
    """The newest PostgreSQL bin directory on the machine, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[-3]) if p.split("/")[-3].isdigit() else 0)
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    return os.path.dirname(initdb) if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PgServer:
    url: str
    datadir: str | None = None
    bindir: str | None = None
    as_postgres: bool = False

    def _run(self, *cmd: str) -> None:
        argv = list(cmd)
        if self.as_postgres:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        subprocess.run(argv, check=True, capture_output=True, text=True)

    def stop(self) -> None:
        if self.datadir is None:
            return
        try:
            self._run(os.path.join(self.bindir, "pg_ctl"), "-D", self.datadir, "-m", "immediate",
                      "-w", "stop")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(os.path.dirname(self.datadir), ignore_errors=True)


def start_server() -> PgServer:
    """Start a server; raise RuntimeError with the reason when that is impossible."""
    if os.environ.get("MEMDESK_TEST_PG_URL"):
        return PgServer(url=os.environ["MEMDESK_TEST_PG_URL"])
    bindir = pg_bindir()
    if bindir is None:
        raise RuntimeError("no PostgreSQL binaries (initdb) on this machine")
    as_postgres = os.geteuid() == 0
    root = tempfile.mkdtemp(prefix="memdesk-pg-")
    datadir = os.path.join(root, "data")
    if as_postgres:
        shutil.chown(root, "postgres", "postgres")
    server = PgServer(url="", datadir=datadir, bindir=bindir, as_postgres=as_postgres)
    port = _free_port()
    try:
        server._run(os.path.join(bindir, "initdb"), "-D", datadir, "-A", "trust", "-U", "postgres",
                    "-E", "UTF8", "--locale=C", "--no-sync")
        opts = (f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        server._run(os.path.join(bindir, "pg_ctl"), "-D", datadir, "-o", opts, "-w",
                    "-l", os.path.join(root, "server.log"), "start")
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"could not start PostgreSQL: {exc.stderr or exc}") from None
    server.url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    return server


def reset_pg(url: str) -> None:
    """Empty the server's database (drop and recreate the public schema)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1),
                           isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()
