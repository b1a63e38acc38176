// The browser tests' host page (host/), built to dist/host; never shipped.
import { defineConfig } from "vite";

export default defineConfig({
  root: `${import.meta.dirname}/host`,
  base: "./",
  logLevel: "warn",
  build: {
    outDir: `${import.meta.dirname}/dist/host`,
    emptyOutDir: true,
    target: "es2022",
    minify: false,
    rollupOptions: { input: `${import.meta.dirname}/host/host.html` },
  },
});
