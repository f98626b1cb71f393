import { defineConfig } from "vitest/config";

// One project per layer of cost (CONTRIBUTING.md): `npm run test:unit` is the fast inner loop;
// `npm test` runs them all.
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // Native model tests are CPU-heavy; on 2 cores more workers only thrash.
    maxWorkers: 2,
    // One CPU thread per context, sleeping while idle, unless a test asks for more (and child processes, such
    // as `toolwright serve`, inherit it): with two workers that fills two cores, and no pool thread spins on
    // a barrier while the OS has descheduled its partner, which is what made a loaded machine 10x slower.
    env: { TOOLWRIGHT_THREADS: "1", TOOLWRIGHT_POLL: "0" },
    reporters: ["default", "./test/support/summary-reporter.ts"],
    projects: [
      // No addon: templates, analysis, PEG, grammars, chat params and parsers. The inner loop: it must
      // stay under a minute on 2 cores; a suite that sweeps a whole data set goes to "oracle".
      // Not isolated: the files of a worker share one module graph, so src/ is loaded and the
      // templates analysed (test/helpers/chat-roundtrip.ts) once per worker, not once per file
      // (that halved the run). A test must not rely on fresh module state: caches are checked by
      // the change in their stats, never by absolute counts.
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"], isolate: false } },
      // No addon, data-driven: the suites that check a whole reference set (llama.cpp's test-chat
      // cases and analysis, Python Jinja2 goldens, templates-dev, MaskBench), most from ../shared.
      { extends: true, test: { name: "oracle", include: ["test/oracle/**/*.test.ts"] } },
      // No addon: the API reference (typedoc) builds with no warning. Its own project since typedoc
      // reads all of src/ and renders ~300 pages: ~12 s of CPU, too much for the inner loop.
      { extends: true, test: { name: "docs", include: ["test/docs/**/*.test.ts"] } },
      // The addon: loading, tokenizing, generating, grammar engines, CLI, packaging, workers.
      { extends: true, test: { name: "native", include: ["test/native/**/*.test.ts"] } },
      // Chat end to end on random-weight models (the sweeps).
      { extends: true, test: { name: "e2e", include: ["test/e2e/**/*.test.ts"] } },
      // Hostile inputs and call sequences, each case in a child process: no crash, hang or blow-up.
      // A case that fails is run again twice (a crash that repeats still fails): one crash of
      // "dispose the context mid-generation" was seen under load (a detached context thread racing
      // the process's exit, fixed; see the CHANGELOG).
      { extends: true, test: { name: "reliability", include: ["test/reliability/**/*.test.ts"], retry: 2 } },
    ],
  },
});
