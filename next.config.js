/** @type {import("next").NextConfig} */
const config = {
  poweredByHeader: false,
  reactStrictMode: true,
  // Native and Node-only packages stay outside the bundle.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "pg", "dockerode", "ssh2", "cpu-features"],
  // `npm test` runs tsc --noEmit itself; the build need not do it twice.
  typescript: { ignoreBuildErrors: true },
};

export default config;
