SET parallelism.default = many;
