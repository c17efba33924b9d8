# skillproxy: an OpenAI-compatible proxy that gives any client Agent Skills.
# Build: docker build -t skillproxy .
# Run:   docker run -p 8787:8787 -v "$PWD/skills:/app/skills:ro" \
#          -e SKILLPROXY_UPSTREAM=http://host.docker.internal:1234/v1 skillproxy
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

COPY pyproject.toml README.md ./
COPY proxy ./proxy
RUN pip install . \
    && useradd --create-home --uid 10001 skillproxy

COPY skills ./skills
COPY config ./config

USER skillproxy

# Listen on all interfaces inside the container; config/skillproxy.yaml is read from /app/config.
ENV SKILLPROXY_HOST=0.0.0.0 \
    SKILLPROXY_PORT=8787 \
    SKILLPROXY_LOG_FORMAT=json

EXPOSE 8787

HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
    CMD python -c "import urllib.request, sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8787/healthz', timeout=2).status == 200 else 1)"

CMD ["skillproxy", "serve", "--config", "/app/config/skillproxy.yaml"]
