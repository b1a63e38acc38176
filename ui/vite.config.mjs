// The dashboard view: campaign.html and src/ bundled into one self-contained HTML file.
import { defineConfig } from "vite";
import { viteSingleFile } from "vite-plugin-singlefile";

export default defineConfig({
  root: import.meta.dirname,
  base: "./",
  logLevel: "warn",
  plugins: [viteSingleFile({ removeViteModuleLoader: true })],
  build: {
    outDir: "dist/view",
    emptyOutDir: true,
    target: "es2022",
    minify: true,
    cssCodeSplit: false,
    assetsInlineLimit: 100_000_000,
    rollupOptions: { input: "campaign.html" },
  },
});
