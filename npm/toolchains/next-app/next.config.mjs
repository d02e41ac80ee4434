// Next.js bundles server code unless told not to; stoic's Node entry loads
// its .wasm file from the package, so it stays a package (the README says so).
export default { serverExternalPackages: ['stoic'] };
