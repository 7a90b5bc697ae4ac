package main

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"knative.dev/pkg/webhook/resourcesemantics"
	"knative.dev/pkg/webhook/resourcesemantics/conversion"

	"github.com/tektoncd/pipeline/pkg/apis/pipeline"
	"github.com/tektoncd/pipeline/pkg/apis/resolution"

	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	"github.com/tektoncd/pipeline/pkg/apis/pipeline/v1alpha1"
	"github.com/tektoncd/pipeline/pkg/apis/pipeline/v1beta1"
	resolutionv1alpha1 "github.com/tektoncd/pipeline/pkg/apis/resolution/v1alpha1"
	resolutionv1beta1 "github.com/tektoncd/pipeline/pkg/apis/resolution/v1beta1"
)

// types is the pipeline's cmd/webhook list of the resources it defaults.
var types = map[schema.GroupVersionKind]resourcesemantics.GenericCRD{
	v1alpha1.SchemeGroupVersion.WithKind("VerificationPolicy"):          &v1alpha1.VerificationPolicy{},
	v1alpha1.SchemeGroupVersion.WithKind("StepAction"):                  &v1alpha1.StepAction{},
	v1beta1.SchemeGroupVersion.WithKind("Pipeline"):                     &v1beta1.Pipeline{},
	v1beta1.SchemeGroupVersion.WithKind("Task"):                         &v1beta1.Task{},
	v1beta1.SchemeGroupVersion.WithKind("TaskRun"):                      &v1beta1.TaskRun{},
	v1beta1.SchemeGroupVersion.WithKind("PipelineRun"):                  &v1beta1.PipelineRun{},
	v1beta1.SchemeGroupVersion.WithKind("CustomRun"):                    &v1beta1.CustomRun{},
	v1beta1.SchemeGroupVersion.WithKind("StepAction"):                   &v1beta1.StepAction{},
	v1.SchemeGroupVersion.WithKind("Task"):                              &v1.Task{},
	v1.SchemeGroupVersion.WithKind("Pipeline"):                          &v1.Pipeline{},
	v1.SchemeGroupVersion.WithKind("TaskRun"):                           &v1.TaskRun{},
	v1.SchemeGroupVersion.WithKind("PipelineRun"):                       &v1.PipelineRun{},
	resolutionv1alpha1.SchemeGroupVersion.WithKind("ResolutionRequest"): &resolutionv1alpha1.ResolutionRequest{},
	resolutionv1beta1.SchemeGroupVersion.WithKind("ResolutionRequest"):  &resolutionv1beta1.ResolutionRequest{},
}

// conversions is the pipeline's cmd/webhook list of the kinds its
// conversion webhook converts, each through its hub version.
var conversions = map[schema.GroupKind]conversion.GroupKindConversion{
	v1beta1.Kind("StepAction"): {DefinitionName: pipeline.StepActionResource.String(), HubVersion: "v1alpha1",
		Zygotes: map[string]conversion.ConvertibleObject{"v1alpha1": &v1alpha1.StepAction{}, "v1beta1": &v1beta1.StepAction{}}},
	v1.Kind("Task"): {DefinitionName: pipeline.TaskResource.String(), HubVersion: "v1beta1",
		Zygotes: map[string]conversion.ConvertibleObject{"v1beta1": &v1beta1.Task{}, "v1": &v1.Task{}}},
	v1.Kind("Pipeline"): {DefinitionName: pipeline.PipelineResource.String(), HubVersion: "v1beta1",
		Zygotes: map[string]conversion.ConvertibleObject{"v1beta1": &v1beta1.Pipeline{}, "v1": &v1.Pipeline{}}},
	v1.Kind("TaskRun"): {DefinitionName: pipeline.TaskRunResource.String(), HubVersion: "v1beta1",
		Zygotes: map[string]conversion.ConvertibleObject{"v1beta1": &v1beta1.TaskRun{}, "v1": &v1.TaskRun{}}},
	v1.Kind("PipelineRun"): {DefinitionName: pipeline.PipelineRunResource.String(), HubVersion: "v1beta1",
		Zygotes: map[string]conversion.ConvertibleObject{"v1beta1": &v1beta1.PipelineRun{}, "v1": &v1.PipelineRun{}}},
	resolutionv1beta1.Kind("ResolutionRequest"): {DefinitionName: resolution.ResolutionRequestResource.String(), HubVersion: "v1alpha1",
		Zygotes: map[string]conversion.ConvertibleObject{"v1alpha1": &resolutionv1alpha1.ResolutionRequest{}, "v1beta1": &resolutionv1beta1.ResolutionRequest{}}},
}
