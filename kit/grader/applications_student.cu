// Chapter 13's applications as the student wrote them (applications_api.cuh).
#define KIT_API_NS student_api
#include "applications_api.cuh"
