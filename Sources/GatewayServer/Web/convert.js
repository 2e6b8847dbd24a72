// The convert panel: files and URLs in (convert-upload.js), with the page options
// (convert-options.js), one live item per job until it ends (convert-jobwatch.js). This module
// wires them and is what the rest of the page talks to.

import { wireOptions } from "./convert-options.js";
import { resetJobs, resumeJobs, wireJobWatch } from "./convert-jobwatch.js";
import { folderChanged, wireUpload } from "./convert-upload.js";

/** Wires the convert panel; `library` supplies the current folder and shows finished documents. */
export function createConvert({ library }) {
  wireOptions();
  wireUpload();
  wireJobWatch({ library });

  return {
    /** Shows the owner's unfinished jobs (queued or running), oldest at the bottom. */
    resume: resumeJobs,

    /** Keeps #target-folder on the library's folder until the user types their own. */
    folderChanged,

    /** Stops every stream and upload and empties the list (signing out). */
    reset: resetJobs,
  };
}
