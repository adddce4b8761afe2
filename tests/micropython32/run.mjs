// The Pico firmware's bench (tests/mcu_upy_bench.py) on MicroPython's WebAssembly port,
// a 32-bit build: its small ints end at 2**30 as they do on the Pico, so an int the
// firmware lets grow past that is a heap allocation, and under micropython.heap_lock()
// a MemoryError. For tests/test_mcu_firmware.py:
//
//     node tests/micropython32/run.mjs PICO_DIR BENCH_FILE < SCRIPT
//
// prints what `micropython BENCH_FILE PICO_DIR < SCRIPT` prints on the unix port, and
// exits 1 with the traceback on stderr when the bench raises. The package comes from
// npm: `npm ci --prefix tests/micropython32` (make test runs it when npm is there).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const [picoDir, benchFile] = process.argv.slice(2);
if (!picoDir || !benchFile) {
  process.stderr.write("usage: node run.mjs PICO_DIR BENCH_FILE < SCRIPT\n");
  process.exit(2);
}
const script = readFileSync(0, "utf8");
const mp = await loadMicroPython({
  // About what MicroPython leaves free for Python on an RP2040.
  heapsize: 192 * 1024,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});
mp.FS.mkdir("/pico");
for (const name of readdirSync(picoDir)) {
  if (name.endsWith(".py")) {
    mp.FS.writeFile("/pico/" + name, readFileSync(join(picoDir, name)));
  }
}
mp.FS.mkdir("/bench");
mp.FS.writeFile("/bench/mcu_upy_bench.py", readFileSync(benchFile));
mp.FS.writeFile("/script.txt", script);
try {
  mp.runPython(
    'import sys\nsys.path.insert(0, "/bench")\nimport mcu_upy_bench\n' +
      'mcu_upy_bench.main("/pico", open("/script.txt").read())\n',
  );
} catch (error) {
  process.stderr.write(String(error) + "\n");
  process.exit(1);
}
