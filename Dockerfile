# cdcflow container image: built on Debian 12 in one stage, run from a slim
# Debian 12 with only the runtime libraries, as an unprivileged user.
#   docker build -t cdcflow .
#   docker run --rm -v "$PWD/schemas:/etc/cdcflow:ro" cdcflow run /etc/cdcflow/demo.sql
FROM debian:12 AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential cmake pkg-config \
      libyajl-dev librdkafka-dev libpq-dev libmariadb-dev libsqlite3-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCDC_TESTS=OFF \
 && cmake --build /build -j"$(nproc)" --target cdcflow \
 && strip /build/cdcflow

FROM debian:12-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libyajl2 librdkafka1 libpq5 libmariadb3 \
      libsqlite3-0 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/cdcflow --shell /usr/sbin/nologin cdcflow \
 && mkdir -p /var/lib/cdcflow /etc/cdcflow \
 && chown cdcflow: /var/lib/cdcflow
COPY --from=build /build/cdcflow /usr/local/bin/cdcflow
USER cdcflow
WORKDIR /var/lib/cdcflow
VOLUME ["/var/lib/cdcflow"]
EXPOSE 9249
ENV CDCFLOW_LOG_LEVEL=info CDCFLOW_STATE_DIR=/var/lib/cdcflow
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
  CMD ["cdcflow", "health", "--port", "9249"]
ENTRYPOINT ["cdcflow"]
CMD ["run", "/etc/cdcflow/demo.sql", "--metrics-port", "9249"]
