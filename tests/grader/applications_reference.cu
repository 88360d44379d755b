// Chapter 13's applications of the reference library: the chapter's
// namespace is renamed as the library was compiled (applications_api.cuh).
#define KIT_API_NS reference_api
#define ch13 ch13_reference
#include "applications_api.cuh"
