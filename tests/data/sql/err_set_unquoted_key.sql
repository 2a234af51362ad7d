SET execution. checkpointing.interval = 3s;
