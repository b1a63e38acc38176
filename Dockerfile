# deepr-mcp over streamable HTTP (and legacy SSE) in a slim, non-root container.
# Not built on the machine that wrote it (no Docker engine there): tests/test_container.py checks that
# every file it copies exists and that its command parses with the CLI's own parser.
#
#   docker build -t deepr-mcp:0.1.0 .
#   docker run -p 8765:8765 -e DEEPR_AUTH_TOKEN="$(openssl rand -hex 24)" -v deepr-data:/data deepr-mcp:0.1.0
#
# The server refuses to listen on 0.0.0.0 without credentials: set DEEPR_AUTH_TOKEN (16+ characters;
# clients send "Authorization: Bearer <token>"), or mount a config with [[auth.principals]] or [auth.oauth].

FROM python:3.12-slim AS wheel
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY deepr_mcp ./deepr_mcp
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.12-slim
RUN useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin deepr \
    && mkdir -p /data && chown deepr:deepr /data
COPY --from=wheel /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
ENV DEEPR_DATA_DIR=/data \
    DEEPR_CONFIG="" \
    PYTHONUNBUFFERED=1
VOLUME ["/data"]
USER deepr
EXPOSE 8765
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=4).status != 200)"]
ENTRYPOINT ["deepr-mcp"]
CMD ["serve", "--http", "0.0.0.0:8765"]
