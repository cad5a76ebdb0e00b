/* version.h — arenasim's version: what `sim --version` prints and arenasim_version() returns. */
#ifndef SIM_BASE_VERSION_H
#define SIM_BASE_VERSION_H

#define SIM_VERSION "0.3"

#endif
