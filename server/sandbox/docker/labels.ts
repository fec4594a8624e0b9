/** Label keys the docker driver puts on its containers and images, so leftovers and checkpoints can be found by filter. */
export const LABEL = {
  /** Every container and image this driver makes. */
  workbench: "sprout.workbench",
  /** Separates drivers sharing one engine (the app, a test run): init() removes only its own scope's leftovers. */
  scope: "sprout.scope",
  sandbox: "sprout.sandbox",
  /** "sandbox" or "reader" (a never-started container used to read a checkpoint's files). */
  role: "sprout.role",
  /** Marks an image as a checkpoint. */
  checkpoint: "sprout.checkpoint",
  /** Lineage parent of a checkpoint ("" for none); differs from Docker's parent after a squash or a repeated commit. */
  parent: "sprout.parent",
  /** The image the lineage started from, i.e. what changes(ref, null) compares with. */
  base: "sprout.base",
  /** Key of a rootfs tarball imported as a base image. */
  rootfsKey: "sprout.rootfs.key",
} as const;

export const CHECKPOINT_REPO = "sprout-checkpoint";
export const ROOTFS_REPO = "sprout-rootfs";
