# cdcflow container image: built on Debian 12 in one stage, run from a slim
# Debian 12 with only the runtime libraries, as an unprivileged user.
#   docker build -t cdcflow .
#   docker run --rm -v "$PWD/schemas:/etc/cdcflow:ro" cdcflow run /etc/cdcflow/demo.sql
# The build packages are the core's plus those each plugin declares in its folder
# (scripts/plugin-packages.sh); the runtime packages are the ones that own the
# libraries the binary links (scripts/runtime-packages.sh), so no list is kept by hand.
FROM debian:12 AS build
WORKDIR /src
COPY scripts/plugin-packages.sh scripts/
COPY formats formats
COPY connectors connectors
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential cmake pkg-config librdkafka-dev \
      librocksdb-dev \
      $(scripts/plugin-packages.sh) \
 && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCDC_TESTS=OFF \
 && cmake --build /build -j"$(nproc)" --target cdcflow \
 && strip /build/cdcflow \
 && scripts/runtime-packages.sh /build/cdcflow > /build/runtime-packages

FROM debian:12-slim
COPY --from=build /build/runtime-packages /tmp/runtime-packages
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates $(cat /tmp/runtime-packages) \
 && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages \
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
