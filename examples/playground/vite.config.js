// Built with relative URLs (base './'), so dist/ can be hosted under any path.
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  // The worker imports stoic's browser entry, which loads its wasm with a
  // top-level await: an ES module worker (Vite's default format is iife).
  worker: { format: 'es' },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  logLevel: 'warn',
});
